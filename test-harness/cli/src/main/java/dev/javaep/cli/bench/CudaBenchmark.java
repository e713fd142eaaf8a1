package dev.javaep.cli.bench;

import dev.javaep.bridge.BridgeStatistics;
import dev.javaep.conformance.models.Models;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.driver.CudaDeviceInfo;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.kernel.KernelBandwidth;
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
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.Function;

/**
 * JavaCudaExecutionProvider's benchmark, run on the GPU machine: per-Run latency of a small MLP and of
 * a 1920×1080×4 float32 elementwise model on JavaCuda (host I/O and device-resident I/O), JavaCpu and
 * ORT's CPU EP; the Java bridge's share of a Run; and the elementwise kernels' bandwidth next to a
 * device-to-device copy timed in the same run. Prints Markdown tables.
 */
public final class CudaBenchmark {
    private static final String CUDA = "JavaCudaExecutionProvider";
    private static final String CPU = "JavaCpuExecutionProvider";
    private static final int HEIGHT = 1080;
    private static final int WIDTH = 1920;

    private CudaBenchmark() {}

    public static void run(Path loaderLibrary) throws Exception {
        if (!BridgeStatistics.ENABLED) {
            System.out.println("(start the JVM with -Djavaep.bridge.statistics=true for the bridge table)");
        }
        CudaDriver driver = CudaDriver.load();
        CudaDeviceInfo info = driver.deviceInfo(0);
        OrtHost host = OrtHost.shared();
        System.out.printf("javaep CUDA benchmark — %s (CC %d.%d, %d SMs), driver %d, ONNX Runtime %s, %s %s%n%n", info.name(),
                info.computeCapabilityMajor(), info.computeCapabilityMinor(), info.multiprocessorCount(), driver.driverVersion(),
                host.version(), System.getProperty("java.vm.name"), System.getProperty("java.version"));
        try (OrtEnvironment env = host.createEnvironment("javaep-cuda-bench", OrtHost.LogLevel.ERROR)) {
            env.registerExecutionProviderLibrary("javaep-cuda-bench", loaderLibrary);
            try {
                latencyTable(env);
                groupingTable(env);
                bridgeTable(env);
                graphsTable(env);
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-cuda-bench");
            }
        }
        bandwidthTable(driver, info);
    }

    private record Workload(String name, byte[] model, String input, String output, TensorData data, int runs) {}

    private static List<Workload> workloads() {
        Random random = new Random(1);
        float[] image = new float[HEIGHT * WIDTH * 4];
        for (int i = 0; i < image.length; i++) {
            image[i] = random.nextFloat();
        }
        return List.of(
                new Workload("MLP 64→128→10, batch 8 (5 nodes)", Models.mlp(), "x", "probabilities",
                        TensorData.ofFloats(new long[] {8, Models.FEATURES}, Models.mlpInput(8)), 2000),
                new Workload("normalize 1080×1920×4 float32 (2 nodes, 33 MB)", Models.normalizeImage(HEIGHT, WIDTH), "image",
                        "normalized", TensorData.ofFloats(new long[] {HEIGHT, WIDTH, 4}, image), 60));
    }

    private static void latencyTable(OrtEnvironment env) {
        EpDevice cuda = env.epDevice(CUDA);
        EpDevice cpu = env.epDevice(CPU);
        System.out.println("## Per-Run latency (µs; median / p99)");
        System.out.println();
        System.out.println("| model | JavaCuda, device-resident I/O | JavaCuda, host I/O | JavaCpu | ORT CPU EP |");
        System.out.println("|---|---:|---:|---:|---:|");
        for (Workload w : workloads()) {
            double[] resident = deviceResident(env, cuda, w);
            double[] cudaHost = timed(env, List.of(cuda), w);
            double[] javaCpu = timed(env, List.of(cpu), w);
            double[] ortCpu = timed(env, List.of(), w);
            System.out.printf("| %s | %s | %s | %s | %s |%n", w.name(), cell(resident), cell(cudaHost), cell(javaCpu), cell(ortCpu));
        }
        System.out.println();
    }

    /**
     * What grouping buys: the same models with every supported node in one compiled group (javaep's
     * default) and with each node compiled alone ({@code javaep.singleNodeGroups}, read per session), side by
     * side in one run. Device-resident I/O, so the table shows the per-node cost of ORT and the bridge.
     */
    private static void groupingTable(OrtEnvironment env) {
        EpDevice cuda = env.epDevice(CUDA);
        List<Workload> models = launchBoundModels();
        System.out.println("## Compiled groups vs one compiled node per ONNX node (JavaCuda, device-resident I/O, µs; median / p99)");
        System.out.println();
        System.out.println("| model | one group | a compiled node per node | ratio of medians |");
        System.out.println("|---|---:|---:|---:|");
        for (Workload w : models) {
            double[] grouped = deviceResident(env, cuda, w);
            double[] single;
            System.setProperty("javaep.singleNodeGroups", "true");
            try {
                single = deviceResident(env, cuda, w);
            } finally {
                System.clearProperty("javaep.singleNodeGroups");
            }
            System.out.printf("| %s | %s | %s | %.2f× |%n", w.name(), cell(grouped), cell(single), single[0] / grouped[0]);
        }
        System.out.println();
    }

    /** The MLP and a 16-node Relu chain: small enough that the host's launches bound the Run. */
    private static List<Workload> launchBoundModels() {
        return List.of(workloads().getFirst(),
                new Workload("16 × Relu on float[1024] (16 nodes)", BenchModels.reluChain(16, 1024), "x", "y16",
                        TensorData.ofFloats(new long[] {1024}, new float[1024]), 3000));
    }

    private static String cell(double[] medianP99) {
        return String.format("%.1f / %.1f", medianP99[0], medianP99[1]);
    }

    private static Session session(OrtEnvironment env, List<EpDevice> devices, byte[] model) {
        try (SessionOptions options = env.createSessionOptions()) {
            if (!devices.isEmpty()) {
                options.disableCpuEpFallback().appendExecutionProvider(devices, Map.of());
            }
            return env.createSession(model, options);
        }
    }

    private static double[] timed(OrtEnvironment env, List<EpDevice> devices, Workload w) {
        try (Session session = session(env, devices, w.model())) {
            Map<String, TensorData> input = Map.of(w.input(), w.data());
            return percentiles(() -> session.run(input), w.runs());
        }
    }

    /** Input copied to the device once; output bound to device memory; only Run is timed. */
    private static double[] deviceResident(OrtEnvironment env, EpDevice cuda, Workload w) {
        return withDeviceResidentRun(env, cuda, w, run -> percentiles(run, w.runs()));
    }

    /**
     * A JavaCuda session of {@code w} whose input is copied to the device once and whose output is bound to device
     * memory; {@code measure} gets one Run of that binding (no host copy in it) and says what it measured.
     */
    private static <T> T withDeviceResidentRun(OrtEnvironment env, EpDevice cuda, Workload w, Function<Runnable, T> measure) {
        MemoryInfo deviceMemory = cuda.memoryInfo(DeviceMemoryType.DEFAULT).orElseThrow();
        try (Session session = session(env, List.of(cuda), w.model());
             Allocator allocator = session.allocator(deviceMemory);
             OrtTensor hostInput = OrtTensor.fromHost(w.data());
             OrtTensor deviceInput = OrtTensor.allocate(allocator, ElementType.FLOAT, w.data().shape());
             IoBinding binding = session.createIoBinding()) {
            env.copyTensors(List.of(hostInput), List.of(deviceInput), null);
            binding.bindInput(w.input(), deviceInput).bindOutputToDevice(w.output(), deviceMemory);
            return measure.apply(() -> session.run(binding, null));
        }
    }

    static double[] percentiles(Runnable run, int samples) {
        for (int i = 0; i < Math.max(20, samples / 4); i++) {
            run.run();
        }
        double[] times = new double[samples];
        for (int i = 0; i < samples; i++) {
            long t0 = System.nanoTime();
            run.run();
            times[i] = (System.nanoTime() - t0) / 1e3;
        }
        Arrays.sort(times);
        return new double[] {times[samples / 2], times[(int) Math.min(samples - 1, Math.ceil(samples * 0.99) - 1)]};
    }

    private static void bridgeTable(OrtEnvironment env) {
        if (!BridgeStatistics.ENABLED) {
            return;
        }
        Workload mlp = workloads().getFirst();
        EpDevice cuda = env.epDevice(CUDA);
        int runs = 2000;
        withDeviceResidentRun(env, cuda, mlp, run -> {
            for (int i = 0; i < 500; i++) {
                run.run();
            }
            BridgeStatistics.reset();
            long t0 = System.nanoTime();
            for (int i = 0; i < runs; i++) {
                run.run();
            }
            double runMicros = (System.nanoTime() - t0) / 1e3 / runs;
            Map<BridgeStatistics.Callback, BridgeStatistics.Totals> totals = BridgeStatistics.snapshot();
            System.out.println("## The Java bridge in one Run (JavaCuda, MLP, device-resident I/O)");
            System.out.println();
            System.out.println("| callback | calls per Run | µs per Run in Java (incl. the CUDA calls it makes) |");
            System.out.println("|---|---:|---:|");
            double javaMicros = 0;
            long calls = 0;
            for (var e : totals.entrySet()) {
                double perRunCalls = e.getValue().calls() / (double) runs;
                double perRunMicros = e.getValue().nanos() / 1e3 / runs;
                calls += e.getValue().calls();
                javaMicros += perRunMicros;
                if (perRunCalls > 0) {
                    System.out.printf("| %s | %.1f | %.2f |%n", e.getKey(), perRunCalls, perRunMicros);
                }
            }
            System.out.printf("| all | %.1f | %.2f of a %.1f µs Run |%n%n", calls / (double) runs, javaMicros, runMicros);
            return null; // the table is printed: nothing to hand back
        });
    }

    /**
     * A compiled group launched eagerly and replayed as a CUDA graph ({@code javaep.cuda.graphs}, read when a session
     * compiles), side by side: the Run's median and p99, and the Java time of the Compute callback per Run (bridge
     * statistics: the group's host work, its launches included). Device-resident I/O, so addresses repeat and the
     * graph replays.
     */
    private static void graphsTable(OrtEnvironment env) {
        if (!BridgeStatistics.ENABLED) {
            return;
        }
        System.out.println("## CUDA graphs: one compiled group launched eagerly vs replayed (JavaCuda, device-resident I/O)\n\n"
                + "| model | Run µs eager (median / p99) | Run µs graph | Compute µs in Java eager | Compute µs graph |\n"
                + "|---|---:|---:|---:|---:|");
        EpDevice cuda = env.epDevice(CUDA);
        String previous = System.getProperty("javaep.cuda.graphs");
        try {
            for (Workload w : launchBoundModels()) {
                double[][] eager = withGraphs("off", env, cuda, w);
                double[][] graph = withGraphs("on", env, cuda, w);
                System.out.printf("| %s | %s | %s | %.2f | %.2f |%n", w.name(), cell(eager[0]), cell(graph[0]), eager[1][0],
                        graph[1][0]);
            }
        } finally {
            if (previous == null) {
                System.clearProperty("javaep.cuda.graphs");
            } else {
                System.setProperty("javaep.cuda.graphs", previous);
            }
        }
        System.out.println();
    }

    /** {median, p99} of the Run and {Compute µs per Run} with {@code javaep.cuda.graphs=graphs}. */
    private static double[][] withGraphs(String graphs, OrtEnvironment env, EpDevice cuda, Workload w) {
        System.setProperty("javaep.cuda.graphs", graphs);
        double[] computeMicros = new double[1];
        double[] run = withDeviceResidentRun(env, cuda, w, boundRun -> {
            double[] times = percentiles(boundRun, w.runs());
            BridgeStatistics.reset();
            for (int i = 0; i < w.runs(); i++) {
                boundRun.run();
            }
            BridgeStatistics.Totals compute = BridgeStatistics.snapshot().get(BridgeStatistics.Callback.COMPUTE);
            computeMicros[0] = compute == null ? Double.NaN : compute.nanos() / 1e3 / w.runs();
            return times;
        });
        return new double[][] {run, computeMicros};
    }

    private static void bandwidthTable(CudaDriver driver, CudaDeviceInfo info) {
        long elements = (long) HEIGHT * WIDTH * 4;
        try (CudaDevice device = CudaDevice.open(driver, 0)) {
            List<KernelBandwidth.Measurement> results = KernelBandwidth.measure(device, elements, 50);
            double copy = results.getFirst().gigabytesPerSecond();
            double nominal = info.peakMemoryBandwidthBytesPerSecond() / 1e9;
            System.out.printf("## Elementwise kernels on 1920×1080×4 float32 (33 MB per tensor); nominal peak %.0f GB/s%n%n", nominal);
            System.out.println("| operation | µs | GB/s | of the D2D copy | of nominal peak |");
            System.out.println("|---|---:|---:|---:|---:|");
            for (KernelBandwidth.Measurement m : results) {
                System.out.printf("| %s | %.1f | %.0f | %.0f%% | %.0f%% |%n", m.operation(), m.micros(), m.gigabytesPerSecond(),
                        100 * m.gigabytesPerSecond() / copy, 100 * m.gigabytesPerSecond() / nominal);
            }
            System.out.println();
        }
    }
}
