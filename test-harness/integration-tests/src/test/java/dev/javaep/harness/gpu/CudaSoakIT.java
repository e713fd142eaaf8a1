package dev.javaep.harness.gpu;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.bridge.BridgeStatistics;
import dev.javaep.conformance.models.Models;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.harness.ProcessMemory;
import dev.javaep.harness.TestPaths;
import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Long runs on JavaCudaExecutionProvider: 10,000 Runs, 1,000 session create/destroy cycles, and
 * concurrent Runs on one device. Device memory (cuMemGetInfo) returns exactly to where it was after
 * the first cycle; every per-session object javaep gave ORT is released; host memory outside the
 * Java heap stays within a bound (it moves by tens of MiB with the JVM's own bookkeeping, with no
 * trend: the per-100-sessions series is printed).
 */
@Tag("gpu")
class CudaSoakIT {
    private static final long DEVICE_SLACK_BYTES = 64L << 20;
    private static final long NATIVE_TREND_SLACK_KIB = 48L << 10;
    private static final int BATCH = 8;

    private static OrtEnvironment env;
    private static EpDevice cuda;
    private static CudaDriver driver;
    private static final TensorData INPUT = TensorData.ofFloats(new long[] {BATCH, Models.FEATURES}, Models.mlpInput(BATCH));

    @BeforeAll
    static void register() {
        driver = CudaGpu.driver();
        env = OrtHost.shared().createEnvironment("javaep-cuda-soak", OrtHost.LogLevel.WARNING);
        env.registerExecutionProviderLibrary("javaep-cuda-soak", TestPaths.loaderLibrary());
        cuda = CudaGpu.device(env);
    }

    @AfterAll
    static void unregister() {
        if (env != null) {
            env.unregisterExecutionProviderLibrary("javaep-cuda-soak");
            env.close();
        }
    }

    private static Session session() {
        // One intra-op thread: the EP's work is on the GPU; ORT's CPU thread pool would only add thread churn.
        try (SessionOptions options = env.createSessionOptions().disableCpuEpFallback().intraOpThreads(1)
                .appendExecutionProvider(List.of(cuda), Map.of())) {
            return env.createSession(Models.mlp(), options);
        }
    }

    private static float[] probabilities(Session session) {
        return session.run(Map.of("x", INPUT)).get("probabilities").floats();
    }

    private static long nativeKib() {
        return ProcessMemory.outsideHeapKib();
    }

    @Test
    void tenThousandRunsAndAThousandSessionsLeaveMemoryWhereItWas() {
        float[] expected;
        try (Session first = session()) {
            expected = probabilities(first);
        }
        long device0 = CudaGpu.freeDeviceMemory(driver);
        long native0 = nativeKib();

        long start = System.nanoTime();
        try (Session session = session()) {
            for (int i = 0; i < 10_000; i++) {
                float[] y = probabilities(session);
                if (i % 1_000 == 0) {
                    assertArrayEquals(expected, y, 1e-6f, "run " + i);
                }
            }
        }
        long runsDone = System.nanoTime();
        long nativeAfterRuns = nativeKib();
        long nativeHalfway = 0;
        List<Long> checkpoints = new ArrayList<>();
        for (int i = 0; i < 1_000; i++) {
            try (Session session = session()) {
                assertArrayEquals(expected, probabilities(session), 1e-6f, "session " + i);
            }
            if (i % 100 == 99) {
                checkpoints.add(nativeKib());
            }
            if (i == 499) {
                nativeHalfway = checkpoints.getLast();
            }
        }
        long sessionsDone = System.nanoTime();
        long device1 = CudaGpu.freeDeviceMemory(driver);
        long native1 = nativeKib();
        System.out.printf("10,000 Runs: %.1f s (%.1f µs each); 1,000 sessions: %.1f s (%.2f ms each)%n",
                (runsDone - start) / 1e9, (runsDone - start) / 1e3 / 10_000, (sessionsDone - runsDone) / 1e9,
                (sessionsDone - runsDone) / 1e6 / 1_000);
        System.out.printf("free device memory: %,d → %,d bytes (Δ %+,d)%n", device0, device1, device1 - device0);
        System.out.printf("host memory outside the Java heap: %,d KiB at start, %,d after 10,000 Runs, %,d after 500 sessions, "
                + "%,d after 1,000 (Δ %+,d; last 500 sessions %+,d)%n", native0, nativeAfterRuns, nativeHalfway, native1,
                native1 - native0, native1 - nativeHalfway);
        System.out.println("outside the heap every 100 sessions (KiB): " + checkpoints);
        System.out.println("javaep objects ORT still holds: " + BridgeStatistics.liveObjects());
        assertTrue(device0 - device1 <= DEVICE_SLACK_BYTES, "device memory not returned: " + (device0 - device1) + " bytes");
        // The JVM's own native memory (JIT code, metaspace, GC tables) moves by tens of MiB between
        // samples; a leak shows as a trend. Compare the first and last 300 sessions.
        long early = (checkpoints.get(0) + checkpoints.get(1) + checkpoints.get(2)) / 3;
        long late = (checkpoints.get(7) + checkpoints.get(8) + checkpoints.get(9)) / 3;
        System.out.printf("mean outside the heap over sessions 1-300: %,d KiB, over 701-1,000: %,d KiB (Δ %+,d)%n",
                early, late, late - early);
        assertTrue(late - early <= NATIVE_TREND_SLACK_KIB, "host memory outside the heap trends up by " + (late - early)
                + " KiB over 700 sessions: " + checkpoints);
        Map<String, Integer> live = BridgeStatistics.liveObjects();
        for (String perSession : List.of("OrtEp", "OrtNodeComputeInfo", "OrtSyncStreamImpl", "OrtSyncNotificationImpl")) {
            assertEquals(0, live.getOrDefault(perSession, 0), perSession + " objects ORT never released: " + live);
        }
    }

    @Test
    void concurrentRunsOnTwoSessionsOfOneDeviceAgree() throws Exception {
        try (Session a = session(); Session b = session()) {
            float[] expected = probabilities(a);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> futures = new ArrayList<>();
                for (int t = 0; t < 8; t++) {
                    Session s = t % 2 == 0 ? a : b;
                    futures.add(pool.submit(() -> {
                        for (int i = 0; i < 500; i++) {
                            assertArrayEquals(expected, probabilities(s), 1e-6f);
                        }
                        return null;
                    }));
                }
                for (Future<?> f : futures) {
                    f.get();
                }
            } finally {
                pool.shutdownNow();
            }
            System.out.println("8 threads × 500 Runs on 2 sessions of one device: all outputs equal");
        }
    }
}
