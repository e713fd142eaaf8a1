package dev.javaep.cli.bench;

import dev.javaep.bridge.BridgeStatistics;
import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.host.EpDevice;
import dev.javaep.host.IoBinding;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The Java work of one compiled group per Run on JavaCpuExecutionProvider, the way an application that binds
 * its tensors runs it: inputs and outputs bound once ({@link IoBinding}), then {@code RunWithBinding} in a loop,
 * so the host side allocates nothing per Run and what is left is ORT and javaep. For 1–4 inputs (one Sum node)
 * and 1–4 outputs (a Relu chain whose every value is an output), it prints the time inside {@code Compute}
 * ({@link BridgeStatistics}), the Java heap javaep allocates per Run (inside Compute, and the whole Run's
 * thread allocation minus ORT's CPU EP on the same binding) and the GCs over the measured Runs. Three more rows take
 * the kernels a real model spends its Runs in: a broadcasting Mul, a MatMul and a Conv (weights as initializers).
 */
final class HotPathBenchmark {
    static final int RUNS = 100_000;
    private static final int WARM_UP = 30_000;
    private static final long LENGTH = 4;

    private HotPathBenchmark() {}

    /** One model: its inputs, outputs and what the table calls it; {@code shapes}: a value's shape where not float[4]. */
    record Workload(String name, byte[] model, List<String> inputs, List<String> outputs, Map<String, long[]> shapes) {
        Workload(String name, byte[] model, List<String> inputs, List<String> outputs) {
            this(name, model, inputs, outputs, Map.of());
        }

        long[] shape(String value) {
            return shapes.getOrDefault(value, new long[] {LENGTH});
        }
    }

    /**
     * {@code y = Sum(x1, …, xk)} on float[4] (one node, k inputs) when {@code op} is Sum; for Add, a chain
     * {@code ((x1 + x2) + x3) + …} (k − 1 nodes, 1 Relu for k = 1), whose kernels allocate less than Sum's.
     */
    static Workload inputs(String op, int inputs) {
        OnnxModelWriter writer = new OnnxModelWriter("inputs").opset(17).output("y", ElementType.FLOAT, Dim.of(LENGTH));
        List<String> names = new ArrayList<>();
        for (int i = 1; i <= inputs; i++) {
            names.add("x" + i);
            writer.input("x" + i, ElementType.FLOAT, Dim.of(LENGTH));
        }
        if (op.equals("Sum")) {
            writer.node("Sum", names, List.of("y"));
        } else if (inputs == 1) {
            writer.node("Relu", names, List.of("y"));
        } else {
            String previous = "x1";
            for (int i = 2; i <= inputs; i++) {
                String out = i == inputs ? "y" : "s" + i;
                writer.node("Add", List.of(previous, "x" + i), List.of(out));
                previous = out;
            }
        }
        String what = op.equals("Sum") ? "Sum of " + inputs : inputs == 1 ? "Relu of 1" : (inputs - 1) + " × Add of " + inputs;
        return new Workload(what + " input" + (inputs > 1 ? "s" : "") + ", 1 output", writer.toByteArray(), names, List.of("y"));
    }

    /** {@code x → Relu → y1 → … → Relu → yk}, every yi an output: k nodes, 1 input, k outputs. */
    static Workload reluOutputs(int outputs) {
        OnnxModelWriter writer = new OnnxModelWriter("relu_outputs").opset(17).input("x", ElementType.FLOAT, Dim.of(LENGTH));
        List<String> names = new ArrayList<>();
        String previous = "x";
        for (int i = 1; i <= outputs; i++) {
            names.add("y" + i);
            writer.output("y" + i, ElementType.FLOAT, Dim.of(LENGTH)).node("Relu", List.of(previous), List.of("y" + i));
            previous = "y" + i;
        }
        return new Workload(outputs + " × Relu, 1 input, " + outputs + " output" + (outputs > 1 ? "s" : ""),
                writer.toByteArray(), List.of("x"), names);
    }

    /** {@code y = x * bias}: x float[2, 3, 8] bound, the bias float[8] an initializer broadcast along the last axis. */
    static Workload broadcastMul() {
        byte[] model = new OnnxModelWriter("broadcast_mul").opset(17)
                .input("x", ElementType.FLOAT, Dim.of(2), Dim.of(3), Dim.of(8)).initializer("bias", pattern(8), 8)
                .output("y", ElementType.FLOAT, Dim.of(2), Dim.of(3), Dim.of(8))
                .node("Mul", List.of("x", "bias"), List.of("y")).toByteArray();
        return new Workload("Mul, [2,3,8] × bias [8]", model, List.of("x"), List.of("y"),
                Map.of("x", new long[] {2, 3, 8}, "y", new long[] {2, 3, 8}));
    }

    /** {@code y = x · w}: x float[16, 32] bound, w float[32, 16] an initializer. */
    static Workload matMul() {
        byte[] model = new OnnxModelWriter("matmul").opset(17)
                .input("x", ElementType.FLOAT, Dim.of(16), Dim.of(32)).initializer("w", pattern(32 * 16), 32, 16)
                .output("y", ElementType.FLOAT, Dim.of(16), Dim.of(16))
                .node("MatMul", List.of("x", "w"), List.of("y")).toByteArray();
        return new Workload("MatMul [16,32] × [32,16]", model, List.of("x"), List.of("y"),
                Map.of("x", new long[] {16, 32}, "y", new long[] {16, 16}));
    }

    /** A 3×3 Conv with bias, 4 → 8 channels on 16×16, padded to keep the size; weights and bias initializers. */
    static Workload conv() {
        byte[] model = new OnnxModelWriter("conv").opset(17)
                .input("x", ElementType.FLOAT, Dim.of(1), Dim.of(4), Dim.of(16), Dim.of(16))
                .initializer("w", pattern(8 * 4 * 3 * 3), 8, 4, 3, 3).initializer("b", pattern(8), 8)
                .output("y", ElementType.FLOAT, Dim.of(1), Dim.of(8), Dim.of(16), Dim.of(16))
                .node("Conv", List.of("x", "w", "b"), List.of("y"),
                        new Attribute.IntList("pads", List.of(1L, 1L, 1L, 1L))).toByteArray();
        return new Workload("Conv 3×3, 4 → 8 channels, [1,4,16,16]", model, List.of("x"), List.of("y"),
                Map.of("x", new long[] {1, 4, 16, 16}, "y", new long[] {1, 8, 16, 16}));
    }

    /** {@code n} small values, positive and negative. */
    private static float[] pattern(int n) {
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = ((i * 7) % 11 - 5) / 8f;
        }
        return values;
    }

    static List<Workload> workloads() {
        List<Workload> result = new ArrayList<>();
        for (int k = 1; k <= 4; k++) {
            result.add(inputs("Add", k));
        }
        for (int k = 1; k <= 4; k++) {
            result.add(reluOutputs(k));
        }
        result.add(broadcastMul());
        result.add(matMul());
        result.add(conv());
        return result;
    }

    /** What {@link #measure} saw over {@link #RUNS} Runs of one session. */
    record Measurement(double runMicros, double computeCalls, double computeMicros, double computeBytes,
                       double threadBytes, long gcs) {}

    /**
     * Binds every input and output of {@code w} to host tensors once, warms up, then times {@code runs} Runs.
     *
     * @param device null for ORT's own CPU EP
     */
    static Measurement measure(OrtEnvironment env, EpDevice device, Workload w, int warmUp, int runs) {
        List<OrtTensor> tensors = new ArrayList<>();
        try (SessionOptions options = env.createSessionOptions()) {
            if (device != null) {
                options.disableCpuEpFallback().appendExecutionProvider(List.of(device), Map.of());
            }
            try (Session session = env.createSession(w.model(), options); IoBinding binding = session.createIoBinding()) {
                for (String input : w.inputs()) {
                    long[] shape = w.shape(input);
                    OrtTensor tensor = OrtTensor.fromHost(TensorData.ofFloats(shape,
                            shape.length == 1 && shape[0] == LENGTH ? new float[] {1, -2, 3, -4} : pattern(elements(shape))));
                    tensors.add(tensor);
                    binding.bindInput(input, tensor);
                }
                for (String output : w.outputs()) {
                    long[] shape = w.shape(output);
                    OrtTensor tensor = OrtTensor.fromHost(TensorData.ofFloats(shape, new float[elements(shape)]));
                    tensors.add(tensor);
                    binding.bindOutput(output, tensor);
                }
                for (int i = 0; i < warmUp; i++) {
                    session.run(binding, null);
                }
                // Five batches; the times are the median batch's (a shared machine's noise lands in one or two), the
                // allocation and GCs are all batches' together.
                int batches = 5;
                double[] runMicros = new double[batches];
                double[] computeMicros = new double[batches];
                long computeCalls = 0;
                long computeBytes = 0;
                long gcs = gcCount();
                long bytes = AllocationMeter.threadAllocatedBytes();
                for (int b = 0; b < batches; b++) {
                    BridgeStatistics.reset();
                    long t0 = System.nanoTime();
                    for (int i = 0; i < runs / batches; i++) {
                        session.run(binding, null);
                    }
                    runMicros[b] = (System.nanoTime() - t0) / 1e3 / (runs / batches);
                    BridgeStatistics.Totals compute = BridgeStatistics.snapshot().get(BridgeStatistics.Callback.COMPUTE);
                    computeMicros[b] = compute.nanos() / 1e3 / (runs / batches);
                    computeCalls += compute.calls();
                    computeBytes += compute.allocatedBytes();
                }
                bytes = AllocationMeter.threadAllocatedBytes() - bytes;
                gcs = gcCount() - gcs;
                java.util.Arrays.sort(runMicros);
                java.util.Arrays.sort(computeMicros);
                return new Measurement(runMicros[batches / 2], computeCalls / (double) runs, computeMicros[batches / 2],
                        computeBytes / (double) runs, bytes / (double) runs, gcs);
            }
        } finally {
            tensors.forEach(OrtTensor::close);
        }
    }

    private static int elements(long[] shape) {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        return Math.toIntExact(n);
    }

    static long gcCount() {
        long count = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            count += Math.max(0, gc.getCollectionCount());
        }
        return count;
    }

    /**
     * Runs the table alone (for a profiler): {@code java -cp 'DIST/lib/*' dev.javaep.cli.bench.HotPathBenchmark DIST};
     * with a second argument {@code cuda}, JavaCuda's table instead ({@link #runCuda}; needs an NVIDIA GPU).
     */
    public static void main(String[] args) {
        if (System.getProperty("javaep.bridge.statistics") == null) {
            System.setProperty("javaep.bridge.statistics", "true");
        }
        java.nio.file.Path library = java.nio.file.Path.of(args[0]).resolve("libjavaep.so");
        boolean cuda = args.length > 1 && args[1].equalsIgnoreCase("cuda");
        try (OrtEnvironment env = dev.javaep.host.OrtHost.shared().createEnvironment("javaep-hot-path",
                dev.javaep.host.OrtHost.LogLevel.ERROR)) {
            env.registerExecutionProviderLibrary("javaep-hot-path", library);
            try {
                if (cuda) {
                    runCuda(env);
                } else {
                    run(env);
                }
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-hot-path");
            }
        }
    }

    static void run(OrtEnvironment env) {
        System.out.printf("Java work per Run of one compiled group on JavaCpu (host tensors bound once, RunWithBinding; %,d Runs "
                + "after %,d warm-up Runs, times of the median of 5 batches; float[%d])%n%n", RUNS, WARM_UP, LENGTH);
        if (!BridgeStatistics.ENABLED) {
            System.out.println("(bridge statistics are off: start the JVM with -Djavaep.bridge.statistics=true for the Compute columns)");
        }
        System.out.println("| model | JavaCpu µs/Run | ORT CPU µs/Run | Compute calls/Run | µs/Run in Compute | heap bytes/Run in Compute "
                + "| heap bytes/Run, JavaCpu − ORT CPU (Run's thread) | GCs over the Runs |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---:|");
        EpDevice cpu = env.epDevice("JavaCpuExecutionProvider");
        Map<String, Measurement> java = new java.util.LinkedHashMap<>();
        for (Workload w : workloads()) {
            Measurement javaCpu = measure(env, cpu, w, WARM_UP, RUNS);
            Measurement ortCpu = measure(env, null, w, WARM_UP / 3, RUNS / 5);
            java.put(w.name(), javaCpu);
            System.out.printf("| %s | %.2f | %.2f | %.1f | %.2f | %.1f | %.1f | %d |%n", w.name(), javaCpu.runMicros(),
                    ortCpu.runMicros(), javaCpu.computeCalls(), javaCpu.computeMicros(), javaCpu.computeBytes(),
                    javaCpu.threadBytes() - ortCpu.threadBytes(), javaCpu.gcs());
        }
        List<Measurement> m = List.copyOf(java.values());
        System.out.printf("%nPer further input (3 × Add of 4 − Relu of 1, ÷ 3, an Add node each): %.2f µs in Compute; per further output "
                + "(4 × Relu − 1 × Relu, ÷ 3, a Relu node each): %.2f µs in Compute%n%n",
                (m.get(3).computeMicros() - m.get(0).computeMicros()) / 3,
                (m.get(7).computeMicros() - m.get(4).computeMicros()) / 3);
    }

    // ---- JavaCuda (issue 13): the same models, device-resident, CUDA graphs off and on ------------------------------

    private static final String CUDA = "JavaCudaExecutionProvider";
    private static final String GRAPHS_PROPERTY = "javaep.cuda.graphs";

    /** What {@link #measureCuda} saw over {@link #RUNS} Runs of one JavaCuda session. */
    record CudaMeasurement(double runMicros, double computeMicros, double computeBytes, double threadBytes, long gcs,
                           long residentGrowthKiB) {}

    /**
     * JavaCuda's table: per model, CUDA graphs off and on ({@code javaep.cuda.graphs}, read when the session compiles),
     * inputs and outputs in device memory bound once (their addresses repeat, so a graph replays), {@link #RUNS} Runs
     * after {@link #WARM_UP}. Columns: µs per Run and in Compute; Java heap bytes per Run inside Compute and on the whole
     * Run's thread; GCs over the Runs; the process's resident memory growth over them (native allocation per Run shows
     * there). Issue 13's target: 0 heap bytes in Compute, ~0 on the thread (what ORT's host side allocates, none), no GC,
     * no growth.
     */
    static void runCuda(OrtEnvironment env) {
        EpDevice cuda = env.epDevice(CUDA); // throws, naming the devices there are, where JavaCuda has none
        // (main turns the bridge statistics on, which the Compute columns need; run-suite's step does too)
        System.out.printf("""
                JavaCuda's work per Run of one compiled group (device tensors bound once, RunWithBinding; %,d Runs after \
                %,d warm-up Runs; float[%d]; bridge statistics %s)

                | model | graphs | µs/Run | µs/Run in Compute | heap bytes/Run in Compute | heap bytes/Run (Run's thread) \
                | GCs over the Runs | resident KiB growth over the Runs |
                |---|---|---:|---:|---:|---:|---:|---:|
                """, RUNS, WARM_UP, LENGTH, BridgeStatistics.ENABLED ? "on" : "OFF: no Compute columns");
        String previous = System.getProperty(GRAPHS_PROPERTY);
        try {
            for (Workload w : workloads()) {
                for (String graphs : List.of("off", "on")) {
                    System.setProperty(GRAPHS_PROPERTY, graphs);
                    try {
                        CudaMeasurement m = measureCuda(env, cuda, w, WARM_UP, RUNS);
                        System.out.printf("| %s | %s | %.2f | %.2f | %.1f | %.1f | %d | %d |%n", w.name(), graphs, m.runMicros(),
                                m.computeMicros(), m.computeBytes(), m.threadBytes(), m.gcs(), m.residentGrowthKiB());
                    } catch (RuntimeException e) {
                        System.out.printf("| %s | %s | failed: %s |||||%n", w.name(), graphs, e); // the other rows still run
                    }
                }
            }
        } finally {
            if (previous == null) {
                System.clearProperty(GRAPHS_PROPERTY);
            } else {
                System.setProperty(GRAPHS_PROPERTY, previous);
            }
        }
        System.out.println();
    }

    /** Binds {@code w}'s inputs (copied to the GPU once) and outputs to device tensors once, warms up, measures {@code runs}. */
    static CudaMeasurement measureCuda(OrtEnvironment env, EpDevice cuda, Workload w, int warmUp, int runs) {
        dev.javaep.host.MemoryInfo deviceMemory = cuda.memoryInfo(dev.javaep.host.DeviceMemoryType.DEFAULT).orElseThrow();
        try (SessionOptions options = env.createSessionOptions()) {
            options.disableCpuEpFallback().appendExecutionProvider(List.of(cuda), Map.of());
            try (Session session = env.createSession(w.model(), options);
                 dev.javaep.host.Allocator allocator = session.allocator(deviceMemory);
                 IoBinding binding = session.createIoBinding()) {
                List<OrtTensor> tensors = new ArrayList<>(); // freed before the allocator closes
                try {
                    for (String input : w.inputs()) {
                        long[] shape = w.shape(input);
                        float[] values = new float[Math.toIntExact(java.util.Arrays.stream(shape).reduce(1, Math::multiplyExact))];
                        for (int i = 0; i < values.length; i++) {
                            values[i] = (i % 2 == 0 ? 1 : -1) * (i % 4 + 1); // 1, -2, 3, -4, ...
                        }
                        try (OrtTensor host = OrtTensor.fromHost(TensorData.ofFloats(shape, values))) {
                            OrtTensor device = OrtTensor.allocate(allocator, ElementType.FLOAT, shape);
                            tensors.add(device);
                            env.copyTensors(List.of(host), List.of(device), null);
                            binding.bindInput(input, device);
                        }
                    }
                    for (String output : w.outputs()) {
                        OrtTensor device = OrtTensor.allocate(allocator, ElementType.FLOAT, w.shape(output));
                        tensors.add(device);
                        binding.bindOutput(output, device);
                    }
                    return measureCudaRuns(session, binding, warmUp, runs);
                } finally {
                    tensors.forEach(OrtTensor::close);
                }
            }
        }
    }

    private static CudaMeasurement measureCudaRuns(Session session, IoBinding binding, int warmUp, int runs) {
        for (int i = 0; i < warmUp; i++) {
            session.run(binding, null);
        }
        BridgeStatistics.reset();
        long gcs = gcCount();
        long resident = residentBytes();
        long bytes = AllocationMeter.threadAllocatedBytes();
        long t0 = System.nanoTime();
        for (int i = 0; i < runs; i++) {
            session.run(binding, null);
        }
        double runMicros = (System.nanoTime() - t0) / 1e3 / runs;
        bytes = AllocationMeter.threadAllocatedBytes() - bytes;
        long growth = (residentBytes() - resident) / 1024;
        gcs = gcCount() - gcs;
        BridgeStatistics.Totals compute = BridgeStatistics.snapshot().get(BridgeStatistics.Callback.COMPUTE);
        return new CudaMeasurement(runMicros, compute.nanos() / 1e3 / runs, compute.allocatedBytes() / (double) runs,
                bytes / (double) runs, gcs, growth);
    }

    /** The process's resident set ({@code /proc/self/statm}, 4 KiB pages); 0 where that file is missing. */
    private static long residentBytes() {
        try {
            String[] fields = java.nio.file.Files.readString(java.nio.file.Path.of("/proc/self/statm")).trim().split(" ");
            return Long.parseLong(fields[1]) * 4096;
        } catch (java.io.IOException | RuntimeException e) {
            return 0;
        }
    }
}
