package dev.javaep.cli.bench;

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
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.CyclicBarrier;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

/**
 * Several GPUs in one host (issue 18): the exported networks of a {@code models.tsv} folder (as bench-networks reads
 * it) on JavaCudaExecutionProvider, ORT's CPU fallback disabled, input and output device-resident through IoBinding.
 * First one session on GPU 0 driven by one thread; then, where two or more JavaCuda EP devices are visible, one session
 * per GPU (EP device i for session i, each with its own copy of the frames on its own GPU), each driven by its own
 * thread, all started together. Prints frames/s per GPU for both and their ratio: scaling means a GPU does as much
 * beside the others as alone. Every session's output is checked against ORT's CPU EP on the same input.
 */
public final class MultiGpuBenchmark {
    private static final String CUDA = "JavaCudaExecutionProvider";
    private static final String TF32_PROPERTY = "javaep.cuda.conv.tf32";
    /** Largest max|diff| / max|reference| accepted: float32 math throughout (TF32 off for the benchmark's sessions). */
    private static final double TOLERANCE = 1e-3;
    /** A GPU beside the others keeps at least this share of its one-GPU frames/s to count as scaling. */
    private static final double SCALING = 0.9;
    private static final int WARM_UP_RUNS = 10;
    private static final long WARM_UP_NANOS = 1_000_000_000L;

    private MultiGpuBenchmark() {}

    /**
     * @param seconds how long each measurement drives its sessions
     * @param only model file-name prefixes to run (empty: all of {@code models.tsv})
     */
    public static void run(Path loaderLibrary, Path modelDir, double seconds, List<String> only) throws Exception {
        CudaDriver driver = CudaDriver.load();
        OrtHost host = OrtHost.shared();
        System.out.printf(Locale.ROOT, "javaep several-GPU benchmark — %s; ONNX Runtime %s, %s %s%n%n",
                IntStream.range(0, driver.deviceCount()).mapToObj(i -> describe(driver.deviceInfo(i)))
                        .collect(Collectors.joining("; ")),
                host.version(), System.getProperty("java.vm.name"), System.getProperty("java.version"));
        List<ExportedNetworks.Network> networks = ExportedNetworks.read(modelDir, only);
        long nanos = (long) (seconds * 1e9);
        String savedTf32 = System.getProperty(TF32_PROPERTY);
        System.setProperty(TF32_PROPERTY, "false"); // read when a session compiles its convolutions
        try (OrtEnvironment env = host.createEnvironment("javaep-multigpu-bench", OrtHost.LogLevel.ERROR)) {
            env.registerExecutionProviderLibrary("javaep-multigpu-bench", loaderLibrary);
            try {
                List<EpDevice> gpus = env.epDevices().stream().filter(d -> d.epName().equals(CUDA))
                        .sorted(Comparator.comparingInt(d -> Integer.parseInt(d.epMetadata().get("cuda.device_id"))))
                        .toList();
                if (gpus.isEmpty()) {
                    System.out.println("no JavaCuda EP device: nothing to run");
                    return;
                }
                table(env, gpus, networks, nanos);
                if (gpus.size() < 2) {
                    System.out.println("one GPU visible: the two-GPU columns need nvidia-h200-x2 (CUDA_VISIBLE_DEVICES="
                            + System.getenv().getOrDefault("CUDA_VISIBLE_DEVICES", "unset") + ")");
                    System.out.println();
                }
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-multigpu-bench");
            }
        } finally {
            if (savedTf32 == null) {
                System.clearProperty(TF32_PROPERTY);
            } else {
                System.setProperty(TF32_PROPERTY, savedTf32);
            }
        }
        System.out.printf(Locale.ROOT, "Frames/s: Runs × the first input's batch over %.1f s per measurement, after %d Runs"
                + " and at least %.0f s of warm-up; a Run ends synchronised. Ratio: a GPU's frames/s beside the other"
                + " over GPU 0's alone (≥ %.1f: scales). Output: max|diff| / max|reference| against ORT's CPU EP on the"
                + " same input, worst session (≤ %.0e, float32 math: %s=false).%n", seconds, WARM_UP_RUNS,
                WARM_UP_NANOS / 1e9, SCALING, TOLERANCE, TF32_PROPERTY);
    }

    private static String describe(CudaDeviceInfo info) {
        return String.format(Locale.ROOT, "GPU %d: %s (%s, %d SMs)", info.ordinal(), info.name(), info.uuidString(),
                info.multiprocessorCount());
    }

    private static void table(OrtEnvironment env, List<EpDevice> gpus, List<ExportedNetworks.Network> networks,
                              long nanos) throws Exception {
        List<EpDevice> pair = gpus.subList(0, Math.min(2, gpus.size()));
        System.out.println("| model | 1 GPU frames/s | GPU 0 of 2 frames/s | GPU 1 of 2 frames/s | GPU 0 ratio"
                + " | GPU 1 ratio | ≥ " + SCALING + "× | output vs ORT CPU |");
        System.out.println("|---|---:|---:|---:|---:|---:|---|---|");
        List<String> notes = new ArrayList<>();
        for (ExportedNetworks.Network n : networks) {
            String name = n.name() + " " + n.shapes();
            if (n.inputs().values().stream().anyMatch(t -> t.elementType() != ElementType.FLOAT)) {
                notes.add(name + ": not a float32 model; skipped");
                continue;
            }
            try {
                System.out.println(row(env, pair, n, name, nanos));
            } catch (Exception e) {
                String message = String.join(" ", String.valueOf(e.getMessage()).split("\\s+"));
                notes.add(name + ": JavaCuda did not run it: " + message);
                System.out.printf("| %s | failed (below) | — | — | — | — | missed | — |%n", name);
            }
            System.out.flush();
        }
        System.out.println();
        notes.forEach(note -> System.out.println("- " + note));
        if (!notes.isEmpty()) {
            System.out.println();
        }
    }

    private static String row(OrtEnvironment env, List<EpDevice> pair, ExportedNetworks.Network n, String name,
                              long nanos) throws Exception {
        Map<String, TensorData> reference = reference(env, n);
        long frames = n.inputs().values().iterator().next().shape()[0];
        try (Driver first = new Driver(env, pair.getFirst(), n)) {
            double alone = driveTogether(List.of(first), nanos, frames)[0];
            double error = first.relativeError(reference);
            if (pair.size() < 2) {
                return String.format(Locale.ROOT, "| %s | %.1f | — | — | — | — | — | %s |", name, alone, verdict(error));
            }
            try (Driver second = new Driver(env, pair.get(1), n)) {
                double[] together = driveTogether(List.of(first, second), nanos, frames);
                error = Math.max(error, Math.max(first.relativeError(reference), second.relativeError(reference)));
                double ratio0 = together[0] / alone;
                double ratio1 = together[1] / alone;
                return String.format(Locale.ROOT, "| %s | %.1f | %.1f | %.1f | %.2f× | %.2f× | %s | %s |", name, alone,
                        together[0], together[1], ratio0, ratio1, Math.min(ratio0, ratio1) >= SCALING ? "met" : "missed",
                        verdict(error));
            }
        }
    }

    private static String verdict(double error) {
        return String.format(Locale.ROOT, "%.1e %s", error, error <= TOLERANCE ? "ok" : "**differs**");
    }

    /** ORT's CPU EP on the same inputs. */
    private static Map<String, TensorData> reference(OrtEnvironment env, ExportedNetworks.Network n) {
        try (SessionOptions options = env.createSessionOptions();
             Session session = env.createSession(n.file(), options)) {
            return session.run(n.inputs());
        }
    }

    /**
     * Each driver's session warmed up, then all of them Run from a thread each, started together, for {@code nanos};
     * frames/s per driver.
     */
    private static double[] driveTogether(List<Driver> drivers, long nanos, long framesPerRun) throws Exception {
        drivers.forEach(Driver::warmUp);
        CyclicBarrier start = new CyclicBarrier(drivers.size());
        try (ExecutorService threads = Executors.newFixedThreadPool(drivers.size())) {
            List<Future<Double>> rates = new ArrayList<>();
            for (Driver d : drivers) {
                rates.add(threads.submit(() -> {
                    start.await();
                    return d.runsPerSecond(nanos) * framesPerRun;
                }));
            }
            double[] framesPerSecond = new double[drivers.size()];
            for (int i = 0; i < framesPerSecond.length; i++) {
                framesPerSecond[i] = rates.get(i).get();
            }
            return framesPerSecond;
        }
    }

    /**
     * One JavaCuda session on one EP device with its own frames: the inputs copied to that GPU once, every output
     * bound to that GPU's memory, so a Run moves nothing between host and GPU.
     */
    private static final class Driver implements AutoCloseable {
        private final OrtEnvironment env;
        private final Session session;
        private final Allocator allocator;
        private final List<OrtTensor> deviceInputs = new ArrayList<>();
        private final IoBinding binding;

        Driver(OrtEnvironment env, EpDevice gpu, ExportedNetworks.Network n) {
            this.env = env;
            MemoryInfo deviceMemory = gpu.memoryInfo(DeviceMemoryType.DEFAULT).orElseThrow();
            try (SessionOptions options = env.createSessionOptions().disableCpuEpFallback()
                    .appendExecutionProvider(List.of(gpu), Map.of())) {
                session = env.createSession(n.file(), options);
            }
            Allocator opened = null;
            IoBinding bound = null;
            try {
                opened = session.allocator(deviceMemory);
                bound = session.createIoBinding();
                for (var input : n.inputs().entrySet()) {
                    OrtTensor device = OrtTensor.allocate(opened, ElementType.FLOAT, input.getValue().shape());
                    deviceInputs.add(device);
                    try (OrtTensor host = OrtTensor.fromHost(input.getValue())) {
                        env.copyTensors(List.of(host), List.of(device), null);
                    }
                    bound.bindInput(input.getKey(), device);
                }
                for (String output : session.outputNames()) {
                    bound.bindOutputToDevice(output, deviceMemory);
                }
            } catch (RuntimeException e) {
                deviceInputs.forEach(OrtTensor::close);
                if (bound != null) {
                    bound.close();
                }
                if (opened != null) {
                    opened.close();
                }
                session.close();
                throw e;
            }
            allocator = opened;
            binding = bound;
        }

        void warmUp() {
            long start = System.nanoTime();
            for (int i = 0; i < WARM_UP_RUNS || System.nanoTime() - start < WARM_UP_NANOS; i++) {
                session.run(binding, null);
            }
        }

        /** Runs back to back for at least {@code nanos}; Runs per second. */
        double runsPerSecond(long nanos) {
            long runs = 0;
            long start = System.nanoTime();
            long elapsed;
            do {
                session.run(binding, null);
                runs++;
                elapsed = System.nanoTime() - start;
            } while (elapsed < nanos);
            return runs / (elapsed / 1e9);
        }

        /** The last Run's outputs, copied to the host, against {@code reference}: the worst output's relative error. */
        double relativeError(Map<String, TensorData> reference) {
            double worst = 0;
            Map<String, OrtTensor> outputs = binding.outputsByName();
            try {
                for (var output : outputs.entrySet()) {
                    OrtTensor device = output.getValue();
                    try (OrtTensor host = OrtTensor.fromHost(new TensorData(device.elementType(), device.shape(),
                            new byte[Math.toIntExact(device.byteSize())]))) {
                        env.copyTensors(List.of(device), List.of(host), null);
                        worst = Math.max(worst, TorchvisionBenchmark.relativeError(host.toHost().floats(),
                                reference.get(output.getKey()).floats()));
                    }
                }
            } finally {
                outputs.values().forEach(OrtTensor::close);
            }
            return worst;
        }

        @Override
        public void close() {
            binding.close();
            deviceInputs.forEach(OrtTensor::close);
            allocator.close();
            session.close();
        }
    }
}
