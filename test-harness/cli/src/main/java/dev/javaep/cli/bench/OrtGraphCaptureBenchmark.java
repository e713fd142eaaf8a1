package dev.javaep.cli.bench;

import dev.javaep.bridge.GraphCaptureBridge;
import dev.javaep.conformance.models.Models;
import dev.javaep.cuda.JavaCudaExecutionProviderFactory;
import dev.javaep.cuda.driver.CudaDeviceInfo;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.host.Allocator;
import dev.javaep.host.DeviceMemoryType;
import dev.javaep.host.EpDevice;
import dev.javaep.host.IoBinding;
import dev.javaep.host.MemoryInfo;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * JavaCuda's per-group CUDA graphs against ONNX Runtime's own graph capture ({@code enable_cuda_graph=1}: ORT replays
 * the whole recorded Run without its executor), side by side in one run, inputs and outputs bound at fixed device
 * addresses (what ORT's capture needs). Prints a Markdown table of Run µs (median / p99) and ORT's replays.
 */
public final class OrtGraphCaptureBenchmark {
    /** JavaCuda's EP option, as ORT's CUDA EP names it. */
    public static final String CAPTURE_OPTION = "enable_cuda_graph";
    /** A 1080p RGBA frame of float32: the plain-Run target (≤ 30 µs) is for this size. */
    private static final int FRAME_FLOATS = 1080 * 1920 * 4;

    private OrtGraphCaptureBenchmark() {}

    /** A model with one float input: what is fed, and how many timed Runs. */
    public record Workload(String name, byte[] model, String input, TensorData data, int runs) {}

    /** 16×Relu, bench-cuda's MLP, a 1080p RGBA float32 Relu and, where {@code torchModels} has it, resnet_small. */
    public static List<Workload> workloads(Path torchModels) throws IOException {
        Random random = new Random(7);
        List<Workload> workloads = new ArrayList<>(List.of(
                new Workload("16 × Relu on float[1024] (16 nodes)", BenchModels.reluChain(16, 1024), "x",
                        floats(random, 1024), 3000),
                new Workload("MLP 64→128→10, batch 8 (5 nodes)", Models.mlp(), "x",
                        TensorData.ofFloats(new long[] {8, Models.FEATURES}, Models.mlpInput(8)), 3000),
                new Workload("Relu on 1080×1920×4 float32 (33 MB)", BenchModels.reluChain(1, FRAME_FLOATS), "x",
                        floats(random, FRAME_FLOATS), 300)));
        if (torchModels != null && Files.isRegularFile(torchModels.resolve("models.tsv"))) {
            for (ExportedNetworks.Network network : ExportedNetworks.read(torchModels, List.of("resnet_small.onnx"))) {
                Map.Entry<String, TensorData> input = network.inputs().entrySet().iterator().next();
                workloads.add(new Workload(network.name() + " " + network.shapes(), Files.readAllBytes(network.file()),
                        input.getKey(), input.getValue(), 1000));
            }
        }
        return workloads;
    }

    private static TensorData floats(Random random, int count) {
        float[] values = new float[count];
        for (int i = 0; i < count; i++) {
            values[i] = random.nextFloat() * 2 - 1;
        }
        return TensorData.ofFloats(new long[] {count}, values);
    }

    /** {@code w}'s output for {@code input} on ORT's CPU EP: the reference, and the output's shape. */
    public static TensorData referenceOutput(OrtEnvironment env, Workload w, TensorData input) {
        try (SessionOptions options = env.createSessionOptions(); Session session = env.createSession(w.model(), options)) {
            return session.run(Map.of(w.input(), input)).get(session.outputNames().getFirst());
        }
    }

    /**
     * A JavaCuda session of a workload whose input and first output are bound to device tensors allocated once: every
     * Run reads and writes the same addresses, as ORT's graph capture requires. New input values are copied into the
     * bound input ({@link #write}).
     */
    public static final class BoundSession implements AutoCloseable {
        private final OrtEnvironment env;
        private final List<AutoCloseable> resources = new ArrayList<>();
        private final Session session;
        private final OrtTensor input;
        private final OrtTensor output;
        private final IoBinding binding;

        public BoundSession(OrtEnvironment env, EpDevice cuda, Workload w, long[] outputShape, boolean ortCapture) {
            this.env = env;
            MemoryInfo deviceMemory = cuda.memoryInfo(DeviceMemoryType.DEFAULT).orElseThrow();
            try {
                try (SessionOptions options = env.createSessionOptions().disableCpuEpFallback()
                        .appendExecutionProvider(List.of(cuda), ortCapture ? Map.of(CAPTURE_OPTION, "1") : Map.of())) {
                    session = keep(env.createSession(w.model(), options));
                }
                Allocator allocator = keep(session.allocator(deviceMemory));
                input = keep(OrtTensor.allocate(allocator, ElementType.FLOAT, w.data().shape()));
                output = keep(OrtTensor.allocate(allocator, ElementType.FLOAT, outputShape));
                binding = keep(session.createIoBinding());
                binding.bindInput(w.input(), input).bindOutput(session.outputNames().getFirst(), output);
            } catch (RuntimeException e) {
                close();
                throw e;
            }
        }

        private <T extends AutoCloseable> T keep(T resource) {
            resources.add(resource);
            return resource;
        }

        /** Copies {@code values} into the bound input (same device address). */
        public void write(TensorData values) {
            try (OrtTensor host = OrtTensor.fromHost(values)) {
                env.copyTensors(List.of(host), List.of(input), null);
            }
        }

        public void run() {
            session.run(binding, null);
        }

        /** The bound output, copied to the host. */
        public float[] read() {
            try (OrtTensor host = OrtTensor.fromHost(TensorData.ofFloats(output.shape(), new float[(int) output.elementCount()]))) {
                env.copyTensors(List.of(output), List.of(host), null);
                return host.toHost().floats();
            }
        }

        @Override
        public void close() {
            RuntimeException failure = null;
            for (AutoCloseable resource : resources.reversed()) {
                try {
                    resource.close();
                } catch (Exception e) {
                    if (failure == null) {
                        failure = new IllegalStateException("closing " + resource, e);
                    } else {
                        failure.addSuppressed(e);
                    }
                }
            }
            resources.clear();
            if (failure != null) {
                throw failure;
            }
        }
    }

    public static void run(Path loaderLibrary, Path torchModels) throws Exception {
        CudaDriver driver = CudaDriver.load();
        CudaDeviceInfo info = driver.deviceInfo(0);
        OrtHost host = OrtHost.shared();
        System.out.printf("javaep ORT graph capture benchmark — %s, driver %d, ONNX Runtime %s, %s %s%n%n", info.name(),
                driver.driverVersion(), host.version(), System.getProperty("java.vm.name"), System.getProperty("java.version"));
        try (OrtEnvironment env = host.createEnvironment("javaep-ortgraph-bench", OrtHost.LogLevel.ERROR)) {
            env.registerExecutionProviderLibrary("javaep-ortgraph-bench", loaderLibrary);
            try {
                table(env, workloads(torchModels));
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-ortgraph-bench");
            }
        }
    }

    private static void table(OrtEnvironment env, List<Workload> workloads) {
        EpDevice cuda = env.epDevice(JavaCudaExecutionProviderFactory.NAME);
        System.out.println("## JavaCuda: per-group CUDA graphs vs ONNX Runtime's graph capture (device-resident I/O at fixed"
                + " addresses; Run µs, median / p99)");
        System.out.println();
        System.out.println("| model | group graphs only | ORT's graph capture (enable_cuda_graph=1) | ratio of medians | ORT replays | max abs error vs ORT CPU |");
        System.out.println("|---|---:|---:|---:|---:|---:|");
        for (Workload w : workloads) {
            try {
                TensorData reference = referenceOutput(env, w, w.data());
                double[] groups = measure(env, cuda, w, reference, false)[0];
                long replaysBefore = GraphCaptureBridge.replays();
                double[][] captured = measure(env, cuda, w, reference, true);
                long replays = GraphCaptureBridge.replays() - replaysBefore;
                System.out.printf("| %s | %.1f / %.1f | %.1f / %.1f | %.2f× | %d | %.2g |%n", w.name(), groups[0], groups[1],
                        captured[0][0], captured[0][1], groups[0] / captured[0][0], replays, captured[1][0]);
            } catch (RuntimeException e) {
                System.out.printf("| %s | failed: %s | | | | |%n", w.name(), e.toString().replace('|', '/').replace('\n', ' '));
            }
        }
        System.out.println();
    }

    /** {median, p99} of the Run, and {max |Δ| of the last output against ORT CPU}. */
    private static double[][] measure(OrtEnvironment env, EpDevice cuda, Workload w, TensorData reference, boolean ortCapture) {
        try (BoundSession session = new BoundSession(env, cuda, w, reference.shape(), ortCapture)) {
            session.write(w.data());
            double[] times = CudaBenchmark.percentiles(session::run, w.runs());
            float[] actual = session.read();
            float[] want = reference.floats();
            double maxError = 0;
            for (int i = 0; i < want.length; i++) {
                maxError = Math.max(maxError, Math.abs(want[i] - actual[i]));
            }
            return new double[][] {times, {maxError}};
        }
    }
}
