package dev.javaep.cli.bench;

import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;

/**
 * JavaCpuExecutionProvider (ORT's CPU fallback disabled) next to ORT's own CPU EP, in one process, at the same
 * intra-op thread count: the networks of a folder listed in its {@code models.tsv} (the exported networks in
 * test-harness/integration-tests' test resources {@code models/torch}; float32 ones) and a chain of 16 activations
 * on a [1,64,56,56] float tensor. Both sessions get {@code SetIntraOpNumThreads(t)}, and JavaCpu its provider option
 * {@code intra_op_num_threads=t} (the size of its kernel thread pool: ORT does not tell a plugin EP its intra-op
 * thread count). The two sessions' Runs alternate while measured. Prints a Markdown table of median µs per Run and the ratio.
 */
public final class NetworkBenchmark {
    private static final String CPU = "JavaCpuExecutionProvider";
    /** Time spent warming each session up (JIT, ORT's arenas; on a busy machine C2 needs seconds for the vector kernels), then measuring it, in nanoseconds. */
    private static final long WARM_UP_NANOS = 3_000_000_000L;
    private static final long MEASURE_NANOS = 2_000_000_000L;

    private NetworkBenchmark() {}

    /** One model to time: its bytes or file, and the inputs to feed. */
    private record Workload(String name, Path file, byte[] bytes, Map<String, TensorData> inputs) {
        Session open(OrtEnvironment env, SessionOptions options) {
            return file != null ? env.createSession(file, options) : env.createSession(bytes, options);
        }
    }

    public static void run(Path loaderLibrary, Path modelDir, List<Integer> threadCounts, List<String> only)
            throws IOException {
        OrtHost host = OrtHost.shared();
        String cpu = cpuName();
        System.out.printf(Locale.ROOT, "javaep CPU benchmark — %s, %d hardware threads, ONNX Runtime %s, %s %s, Vector API %s%n%n",
                cpu, Runtime.getRuntime().availableProcessors(), host.version(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"),
                ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent() ? "on" : "off (no jdk.incubator.vector)");
        List<Workload> workloads = workloads(modelDir, only);
        try (OrtEnvironment env = host.createEnvironment("javaep-cpu-bench", OrtHost.LogLevel.ERROR)) {
            env.registerExecutionProviderLibrary("javaep-cpu-bench", loaderLibrary);
            try {
                System.out.println("| model | threads | JavaCpu µs/Run | ORT CPU µs/Run | JavaCpu / ORT CPU | ≤ 3× |");
                System.out.println("|---|---:|---:|---:|---:|---|");
                for (Workload w : workloads) {
                    for (int threads : threadCounts) {
                        double[] micros = timeSideBySide(env, w, threads);
                        double ratio = micros[0] / micros[1];
                        System.out.printf(Locale.ROOT, "| %s | %d | %.0f | %.0f | %.2f× | %s |%n", w.name(), threads, micros[0],
                                micros[1], ratio, ratio <= 3 ? "met" : "missed");
                    }
                }
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-cpu-bench");
            }
        }
    }

    /**
     * Median µs per Run on JavaCpu and on ORT CPU: both sessions warm up for {@link #WARM_UP_NANOS}, then their Runs
     * alternate for {@link #MEASURE_NANOS} (at least 15 each), so a busy machine slows both alike.
     */
    private static double[] timeSideBySide(OrtEnvironment env, Workload w, int threads) {
        try (SessionOptions javaOptions = env.createSessionOptions().intraOpThreads(threads).disableCpuEpFallback()
                     .appendExecutionProvider(List.of(env.epDevice(CPU)), Map.of("intra_op_num_threads", Integer.toString(threads)));
             SessionOptions ortOptions = env.createSessionOptions().intraOpThreads(threads);
             Session java = w.open(env, javaOptions);
             Session ort = w.open(env, ortOptions)) {
            for (Session s : List.of(java, ort)) {
                long start = System.nanoTime();
                for (int warm = 0; warm < 10 || System.nanoTime() - start < WARM_UP_NANOS; warm++) {
                    s.run(w.inputs());
                }
            }
            List<Double> javaSamples = new ArrayList<>();
            List<Double> ortSamples = new ArrayList<>();
            long start = System.nanoTime();
            while (javaSamples.size() < 15 || System.nanoTime() - start < MEASURE_NANOS) {
                javaSamples.add(micros(java, w.inputs()));
                ortSamples.add(micros(ort, w.inputs()));
            }
            return new double[] {median(javaSamples), median(ortSamples)};
        }
    }

    private static double micros(Session session, Map<String, TensorData> inputs) {
        long t0 = System.nanoTime();
        session.run(inputs);
        return (System.nanoTime() - t0) / 1e3;
    }

    private static double median(List<Double> samples) {
        samples.sort(null);
        return samples.get(samples.size() / 2);
    }

    /** The float32 networks listed in {@code dir/models.tsv} (at their listed input shapes), then the activation chain. */
    private static List<Workload> workloads(Path dir, List<String> only) throws IOException {
        List<Workload> workloads = new ArrayList<>();
        for (ExportedNetworks.Network n : ExportedNetworks.read(dir, only)) {
            workloads.add(new Workload(n.name() + " " + n.shapes(), n.file(), null, n.inputs()));
        }
        if (only.isEmpty() || only.contains("activations")) {
            long[] shape = {1, 64, 56, 56};
            workloads.add(new Workload("16 activations [1,64,56,56]", null, activationChain(16, shape),
                    Map.of("x", randomFloats(shape))));
        }
        return workloads;
    }

    /** {@code x → Relu → Sigmoid → Tanh → Neg → Relu → …} (16 nodes): elementwise work with nothing else. */
    static byte[] activationChain(int nodes, long[] shape) {
        Dim[] dims = Arrays.stream(shape).mapToObj(Dim::of).toArray(Dim[]::new);
        OnnxModelWriter writer = new OnnxModelWriter("activation_chain").opset(17)
                .input("x", ElementType.FLOAT, dims).output("y" + nodes, ElementType.FLOAT, dims);
        String[] ops = {"Relu", "Sigmoid", "Tanh", "Neg"};
        String previous = "x";
        for (int i = 1; i <= nodes; i++) {
            writer.node(ops[(i - 1) % ops.length], List.of(previous), List.of("y" + i));
            previous = "y" + i;
        }
        return writer.toByteArray();
    }

    private static TensorData randomFloats(long[] shape) {
        int n = Math.toIntExact(Arrays.stream(shape).reduce(1, Math::multiplyExact));
        float[] values = new float[n];
        Random random = new Random(13);
        for (int i = 0; i < n; i++) {
            values[i] = random.nextFloat(-2f, 2f);
        }
        return TensorData.ofFloats(shape, values);
    }

    /** The CPU's model name from /proc/cpuinfo where there is one, else the OS architecture. */
    static String cpuName() {
        try {
            Path info = Path.of("/proc/cpuinfo");
            if (Files.isReadable(info)) {
                for (String line : Files.readAllLines(info)) {
                    if (line.startsWith("model name")) {
                        return line.substring(line.indexOf(':') + 1).strip();
                    }
                }
            }
        } catch (IOException e) {
            // fall through to the architecture
        }
        return System.getProperty("os.arch");
    }
}
