package dev.javaep.conformance.kit;

import dev.javaep.host.Session;
import dev.javaep.host.TensorData;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/** N threads × M Runs, on one shared session and on a session per thread: every output equals the serial one. */
final class ConcurrencyChecks {
    private static final int ELEMENTS = 4096;

    private ConcurrencyChecks() {}

    static CheckGroup group() {
        return new CheckGroup("concurrency", "concurrent Runs give the serial results", List.of(
                new Check("concurrency.shared-session",
                        "threads × Runs on one session give the outputs a serial Run gives",
                        c -> run(c, true)),
                new Check("concurrency.separate-sessions",
                        "threads × Runs, a session per thread, give the outputs a serial Run gives",
                        c -> run(c, false))));
    }

    private static String run(KitContext context, boolean shared) throws Exception {
        int threads = context.options().threads();
        int runs = context.options().runsPerThread();
        byte[] model = KitContext.addModel();
        float[][][] expected = new float[threads][runs][];
        try (Session serial = context.session(model, true)) {
            for (int t = 0; t < threads; t++) {
                for (int r = 0; r < runs; r++) {
                    expected[t][r] = serial.run(inputs(t, r)).get("y").floats();
                }
            }
        }
        List<String> mismatches = java.util.Collections.synchronizedList(new ArrayList<>());
        Session sharedSession = shared ? context.session(model, true) : null;
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            List<Future<Void>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int thread = t;
                Callable<Void> work = () -> {
                    Session session = shared ? sharedSession : context.session(model, true);
                    try {
                        start.await();
                        for (int r = 0; r < runs; r++) {
                            float[] y = session.run(inputs(thread, r)).get("y").floats();
                            if (!Arrays.equals(y, expected[thread][r])) {
                                mismatches.add("thread " + thread + " Run " + r);
                            }
                        }
                    } finally {
                        if (!shared) {
                            session.close();
                        }
                    }
                    return null;
                };
                futures.add(pool.submit(work));
            }
            start.countDown();
            for (Future<Void> future : futures) {
                future.get();
            }
        } finally {
            pool.shutdown();
            if (sharedSession != null) {
                sharedSession.close();
            }
        }
        if (!mismatches.isEmpty()) {
            throw Check.fail(mismatches.size() + " of " + threads * runs + " concurrent Runs differ from the serial Run: "
                    + mismatches.subList(0, Math.min(5, mismatches.size())));
        }
        return threads + " threads × " + runs + " Runs" + (shared ? " on one session" : ", a session each");
    }

    private static Map<String, TensorData> inputs(int thread, int run) {
        float[] a = new float[ELEMENTS];
        float[] b = new float[ELEMENTS];
        for (int i = 0; i < ELEMENTS; i++) {
            a[i] = thread * 1000 + run + i * 0.5f;
            b[i] = (i % 7) - thread * 0.25f;
        }
        long[] shape = {ELEMENTS};
        return Map.of("a", TensorData.ofFloats(shape, a), "b", TensorData.ofFloats(shape, b));
    }
}
