package dev.javaep.cli.bench;

import dev.javaep.bridge.UpcallGuard;
import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtEpFactoryStruct;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Prints the cost of the Java bridge: an FFM upcall through {@link UpcallGuard}, a bare downcall into ORT,
 * and the per-node cost of a compiled node on JavaCpuExecutionProvider measured through ORT's own Run.
 * Ratios come from one run on one machine; absolute times are this machine's.
 */
public final class BridgeBenchmark {
    private static final int CALLS = 5_000_000;

    private BridgeBenchmark() {}

    /** The cheapest possible callback body: what is left to measure is the transition and the guard. */
    static int vendorId(MemorySegment self) {
        return 0x10de;
    }

    public static void run(Path loaderLibrary) throws Throwable {
        // The Compute columns of the hot-path table need the bridge's statistics; the property is read once, when
        // BridgeStatistics is first used, which is after this line (the EP library is registered below).
        if (System.getProperty("javaep.bridge.statistics") == null) {
            System.setProperty("javaep.bridge.statistics", "true");
        }
        OrtHost host = OrtHost.shared();
        System.out.printf("javaep bridge benchmark — ONNX Runtime %s, %s %s, %d cores%n%n", host.version(),
                System.getProperty("java.vm.name"), System.getProperty("java.version"), Runtime.getRuntime().availableProcessors());

        // 1. Upcall through the guard, entered from native code: a downcall to the stub itself.
        MethodHandle target = MethodHandles.lookup().findStatic(BridgeBenchmark.class, "vendorId",
                MethodType.methodType(int.class, MemorySegment.class));
        MemorySegment stub = UpcallGuard.stub(OrtEpFactoryStruct.GetVendorId, target, Arena.global());
        MethodHandle callStub = Linker.nativeLinker().downcallHandle(stub,
                FunctionDescriptor.of(ValueLayout.JAVA_INT, ValueLayout.ADDRESS));
        double roundTrip = nanosPerCall(() -> {
            int sum = 0;
            for (int i = 0; i < CALLS; i++) {
                sum += (int) callStub.invokeExact(MemorySegment.NULL);
            }
            return sum;
        });
        // 2. A bare downcall into ORT (a getter with no work), to separate the two directions.
        MethodHandle getVersion = host.api().table().handle(OrtApiSlot.GetErrorCode);
        MemorySegment status = host.api().createStatus(dev.javaep.ort.OrtErrorCode.FAIL, "bench");
        double downcall = nanosPerCall(() -> {
            int sum = 0;
            for (int i = 0; i < CALLS; i++) {
                sum += (int) getVersion.invokeExact(status);
            }
            return sum;
        });
        host.api().releaseStatus(status);
        System.out.println("| call | ns per call |");
        System.out.println("|---|---:|");
        System.out.printf("| native→Java upcall through UpcallGuard (+ the downcall that enters it) | %.1f |%n", roundTrip);
        System.out.printf("| bare Java→ORT downcall (GetErrorCode) | %.1f |%n", downcall);
        System.out.printf("| ⇒ upcall alone (difference) | %.1f |%n%n", roundTrip - downcall);

        // 3. Per compiled node, through ORT: a chain of N Identity-free Relu nodes on a tiny tensor.
        try (OrtEnvironment env = host.createEnvironment("javaep-bench", OrtHost.LogLevel.ERROR)) {
            env.registerExecutionProviderLibrary("javaep-bench", loaderLibrary);
            try {
                System.out.println("| model | JavaCpuExecutionProvider µs/Run | ORT CPU µs/Run | Java − ORT per node (µs) |");
                System.out.println("|---|---:|---:|---:|");
                for (int nodes : new int[] {1, 16}) {
                    byte[] model = BenchModels.reluChain(nodes, 4);
                    Map<String, TensorData> input = Map.of("x", TensorData.ofFloats(new long[] {4}, 1, -2, 3, -4));
                    double java;
                    double ort;
                    try (SessionOptions javaOptions = env.createSessionOptions().disableCpuEpFallback()
                            .appendExecutionProvider(List.of(env.epDevice("JavaCpuExecutionProvider")), Map.of());
                         SessionOptions ortOptions = env.createSessionOptions();
                         Session javaSession = env.createSession(model, javaOptions);
                         Session ortSession = env.createSession(model, ortOptions)) {
                        java = RunTimer.medianMicros(javaSession, input, 3000, 2000);
                        ort = RunTimer.medianMicros(ortSession, input, 3000, 2000);
                    }
                    System.out.printf("| %d × Relu on float[4] | %.2f | %.2f | %.2f |%n", nodes, java, ort, (java - ort) / nodes);
                }
                System.out.println();
                groupingTable(env);
                System.out.println();
                HotPathBenchmark.run(env);
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-bench");
            }
        }
    }

    /** 16 Relu nodes as one compiled group (the default) and as 16 ({@code javaep.singleNodeGroups}), in one run. */
    private static void groupingTable(OrtEnvironment env) {
        System.out.println("| 16 × Relu on float[4], JavaCpu | one group µs/Run | a compiled node per node µs/Run | ratio |");
        System.out.println("|---|---:|---:|---:|");
        byte[] model = BenchModels.reluChain(16, 4);
        Map<String, TensorData> input = Map.of("x", TensorData.ofFloats(new long[] {4}, 1, -2, 3, -4));
        double[] micros = new double[2];
        for (int single = 0; single < 2; single++) {
            if (single == 1) {
                System.setProperty("javaep.singleNodeGroups", "true"); // read at session creation
            }
            try (SessionOptions options = env.createSessionOptions().disableCpuEpFallback()
                    .appendExecutionProvider(List.of(env.epDevice("JavaCpuExecutionProvider")), Map.of());
                 Session session = env.createSession(model, options)) {
                micros[single] = RunTimer.medianMicros(session, input, 3000, 2000);
            } finally {
                System.clearProperty("javaep.singleNodeGroups");
            }
        }
        System.out.printf("| | %.2f | %.2f | %.2f× |%n", micros[0], micros[1], micros[1] / micros[0]);
    }

    @FunctionalInterface
    private interface Loop {
        int run() throws Throwable;
    }

    private static double nanosPerCall(Loop loop) throws Throwable {
        loop.run(); // warm-up: JIT-compile the loop and the stub's Java side
        List<Double> samples = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long t0 = System.nanoTime();
            loop.run();
            samples.add((System.nanoTime() - t0) / (double) CALLS);
        }
        samples.sort(null);
        return samples.get(samples.size() / 2);
    }
}
