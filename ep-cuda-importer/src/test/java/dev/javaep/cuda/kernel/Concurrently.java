package dev.javaep.cuda.kernel;

import dev.javaep.cuda.CudaDevice;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** Runs a body on several threads at once, each with the device current, as ORT's concurrent Runs would. */
final class Concurrently {
    /** What one thread does; {@code thread} numbers them from 0. */
    @FunctionalInterface
    interface Body {
        void run(int thread) throws Exception;
    }

    private Concurrently() {}

    /** {@code body} on {@code threads} threads; returns when all are done, throwing the first failure. */
    static void onThreads(CudaDevice device, int threads, Body body) throws Exception {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                runs.add(pool.submit(() -> {
                    device.makeCurrent();
                    body.run(thread);
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get();
            }
        } finally {
            pool.shutdown();
        }
    }
}
