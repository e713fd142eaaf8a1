package dev.javaep.cli.bench;

import dev.javaep.cuda.driver.CudaDeviceInfo;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.kernel.CudaStepBreakdown;
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
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Random;
import java.util.stream.Stream;

/**
 * torchvision architectures exported by PyTorch, on JavaCuda next to PyTorch on the same GPU (issue 13). The script
 * {@code tools/gpu/torchvision_bench.py} exports each model (random weights from fixed seeds; batch 1 and 8; float32,
 * and float16 as the {@code .half()} model) and times PyTorch eager and PyTorch replaying a CUDA graph; then, after it
 * has exited (the GPU is not shared), each exported file runs here on JavaCudaExecutionProvider with ORT's CPU fallback
 * disabled, input and output device-resident through IoBinding (fixed addresses, so JavaCuda replays its CUDA graph),
 * with {@code javaep.cuda.graphs} on and off (read when a session compiles). Each JavaCuda output is checked against
 * ORT's CPU EP running the float32 file on the same input values: max |difference| over max |reference|. A model
 * JavaCuda cannot take whole is reported with the session's error (which names the nodes it declined), not hidden.
 * Prints a Markdown table per model, with graphs on also under {@code javaep.cuda.fusion=cudnn} (cuDNN's fused call)
 * and {@code epilogue} (Conv + activation only), then where the GPU time goes: for the model's first case (or every case with
 * {@code -Djavaep.bench.breakdown=all}; none with {@code none}), {@link CudaStepBreakdown}'s tables from sessions with
 * {@code javaep.cuda.profileSteps} on, fusion on and off.
 */
public final class TorchvisionBenchmark {
    private static final String CUDA = "JavaCudaExecutionProvider";
    private static final int WARM_UP = 10;
    /** Largest max|diff| / max|reference| accepted: float32 convolutions may run in TF32, as PyTorch's do. */
    private static final double FLOAT_TOLERANCE = 1e-2;
    private static final double HALF_TOLERANCE = 5e-2;
    /** Profiled Runs per breakdown, after the warm-up (eager, an event pair per step: slower than a timed Run). */
    private static final int PROFILED_RUNS = 20;

    private TorchvisionBenchmark() {}

    /** One case the script exported and timed, or one it could not ({@code error} set, times NaN). */
    private record TorchCase(String model, int batch, String dtype, long[] inputShape, Path onnx, double eagerMs,
                             double graphMs, String error) {
        ElementType type() {
            return dtype.equals("float16") ? ElementType.FLOAT16 : ElementType.FLOAT;
        }

        /** The float32 file of the same model and batch: the reference's model. */
        Path float32Onnx() {
            return onnx.resolveSibling(onnx.getFileName().toString().replace("_float16.onnx", "_float32.onnx"));
        }
    }

    /**
     * JavaCuda's figures for one case: median ms with graphs on and off, with graphs on under the previous fusion, and
     * the output's relative error.
     */
    private record JavaCudaResult(double graphsMs, double eagerMs, double cudnnFusionMs, double previousFusionMs,
                                  double relativeError) {}

    /**
     * @param only model names to run (empty: all the script knows)
     * @param iterations timed iterations on both sides (median of them)
     */
    public static void run(Path loaderLibrary, String python, Path script, List<String> only, int iterations)
            throws Exception {
        CudaDriver driver = CudaDriver.load();
        CudaDeviceInfo info = driver.deviceInfo(0);
        OrtHost host = OrtHost.shared();
        Path work = Files.createTempDirectory("javaep-torchvision");
        List<String> log = new ArrayList<>();
        List<TorchCase> cases = torch(python, script, work, only, iterations, log);
        String torchVersion = log.stream().filter(l -> l.startsWith("torch ")).findFirst().orElse("not run");
        System.out.printf(Locale.ROOT, "torchvision architectures on JavaCuda vs PyTorch — %s (%d SMs), ONNX Runtime %s,"
                        + " %s %s; PyTorch: %s%n%n", info.name(), info.multiprocessorCount(), host.version(),
                System.getProperty("java.vm.name"), System.getProperty("java.version"), torchVersion);
        if (cases.isEmpty()) {
            System.out.println("The script gave no cases; its output:");
            log.forEach(l -> System.out.println("    " + l));
            return;
        }
        Map<String, List<TorchCase>> byModel = new LinkedHashMap<>();
        cases.forEach(c -> byModel.computeIfAbsent(c.model(), m -> new ArrayList<>()).add(c));
        Properties saved = (Properties) System.getProperties().clone(); // javaep.cuda.graphs is set per session
        try (OrtEnvironment env = host.createEnvironment("javaep-torchvision-bench", OrtHost.LogLevel.ERROR)) {
            try {
                env.registerExecutionProviderLibrary("javaep-torchvision-bench", loaderLibrary);
            } catch (RuntimeException e) {
                // said before the environment closes: a failed registration has crashed ORT's ReleaseEnv (ORT 1.30)
                System.out.println("registering " + loaderLibrary + " failed: " + e.getMessage());
                System.out.flush();
                throw e;
            }
            try {
                for (var entry : byModel.entrySet()) {
                    TorchCase first = entry.getValue().getFirst();
                    System.out.printf(Locale.ROOT, "### %s %s%n%n", entry.getKey(), first.inputShape() == null ? ""
                            : "(" + first.inputShape()[2] + "×" + first.inputShape()[3] + ")");
                    System.out.println("| batch | dtype | JavaCuda ms, graphs on | JavaCuda ms, graphs off"
                            + " | JavaCuda ms, graphs on, fusion=cudnn | JavaCuda ms, graphs on, fusion=epilogue"
                            + " | PyTorch eager ms | PyTorch CUDA graph ms"
                            + " | JavaCuda / PyTorch graph | ≤ 1.0× | output vs ORT CPU |");
                    System.out.println("|---:|---|---:|---:|---:|---:|---:|---:|---:|---|---|");
                    List<String> notes = new ArrayList<>();
                    for (TorchCase c : entry.getValue()) {
                        System.out.println(row(env, c, iterations, notes));
                        System.out.flush();
                    }
                    System.out.println();
                    notes.forEach(n -> System.out.println("- " + n));
                    if (!notes.isEmpty()) {
                        System.out.println();
                    }
                    String which = System.getProperty("javaep.bench.breakdown", "first");
                    for (TorchCase c : entry.getValue()) {
                        if (which.equals("none") || which.equals("first") && c != entry.getValue().getFirst()) {
                            continue;
                        }
                        printBreakdown(env, c);
                    }
                }
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-torchvision-bench");
            }
        } finally {
            System.setProperties(saved);
            deleteTree(work);
        }
        List<String> drifts = log.stream().filter(l -> l.startsWith("drift ")).toList();
        if (!drifts.isEmpty()) {
            System.out.println("PyTorch's own float16 model vs its float32 model on the same input, max|diff| / max|float32|"
                    + " (the yardstick for the float16 column above):");
            drifts.forEach(d -> System.out.println("- " + d.substring("drift ".length())));
            System.out.println();
        }
        System.out.printf(Locale.ROOT, "Median of %d iterations per side after warm-up (JavaCuda: %d Runs, the first compiles"
                + " the kernels and times cuDNN's algorithms); a Run and a PyTorch iteration both end synchronised."
                + " Fusion (graphs on): the default fuses Conv + activation and Conv + Add + activation with the"
                + " residual in the epilogue pass; fusion=cudnn adds cuDNN's fused conv+bias+ReLU call where its timing"
                + " wins; fusion=epilogue fuses Conv + activation only."
                + " Ratio: JavaCuda with graphs on (the default) over PyTorch's CUDA-graph replay. Output: max|diff| /"
                + " max|reference| against ORT's CPU EP on the float32 file (≤ %.0e float32, TF32 allowed; ≤ %.0e"
                + " float16).%n", iterations, WARM_UP, FLOAT_TOLERANCE, HALF_TOLERANCE);
    }

    /** One table row; a case JavaCuda or the script could not run adds its reason to {@code notes}. */
    private static String row(OrtEnvironment env, TorchCase c, int iterations, List<String> notes) {
        String torchEager = Double.isNaN(c.eagerMs()) ? "—" : String.format(Locale.ROOT, "%.3f", c.eagerMs());
        String torchGraph = Double.isNaN(c.graphMs()) ? "—" : String.format(Locale.ROOT, "%.3f", c.graphMs());
        if (c.error() != null) {
            notes.add("batch " + c.batch() + " " + c.dtype() + ": PyTorch's side failed: " + c.error());
            return String.format(Locale.ROOT, "| %d | %s | — | — | — | — | — | — | — | not run | — |", c.batch(), c.dtype());
        }
        try {
            TensorData input = input(c.type(), c.inputShape());
            progress(c.onnx().getFileName() + ": ORT CPU reference");
            TensorData referenceOutput = reference(env, c.float32Onnx(), asFloat32(input));
            float[] reference = referenceOutput.floats();
            long[] outputShape = referenceOutput.shape(); // a class vector or a frame: the model says which
            float[] output = new float[reference.length];
            progress(c.onnx().getFileName() + ": JavaCuda, graphs on");
            System.setProperty(FUSION, "on");
            System.setProperty("javaep.cuda.graphs", "on");
            double graphsOn = timeOnJavaCuda(env, c, input, outputShape, iterations, output);
            progress(c.onnx().getFileName() + ": JavaCuda, graphs off");
            System.setProperty("javaep.cuda.graphs", "off");
            double graphsOff = timeOnJavaCuda(env, c, input, outputShape, iterations, new float[reference.length]);
            System.setProperty("javaep.cuda.graphs", "on");
            progress(c.onnx().getFileName() + ": JavaCuda, graphs on, fusion=cudnn");
            System.setProperty(FUSION, "cudnn");
            double cudnnFusion = timeOnJavaCuda(env, c, input, outputShape, iterations, new float[reference.length]);
            progress(c.onnx().getFileName() + ": JavaCuda, graphs on, fusion=epilogue");
            System.setProperty(FUSION, "epilogue");
            double previousFusion = timeOnJavaCuda(env, c, input, outputShape, iterations, new float[reference.length]);
            System.setProperty(FUSION, "on");
            return formatRow(c, new JavaCudaResult(graphsOn, graphsOff, cudnnFusion, previousFusion,
                    relativeError(output, reference)),
                    torchEager, torchGraph);
        } catch (RuntimeException e) {
            String message = String.join(" ", String.valueOf(e.getMessage()).split("\\s+"));
            notes.add("batch " + c.batch() + " " + c.dtype() + ": JavaCuda did not run it: " + message);
            return String.format(Locale.ROOT, "| %d | %s | failed (below) | — | — | — | %s | %s | — | missed | — |", c.batch(),
                    c.dtype(), torchEager, torchGraph);
        }
    }

    /** The exported files (some 300 MB for the four models) go when the tables are printed. */
    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> paths = Files.walk(dir)) {
            for (Path p : paths.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }

    /** With {@code -Djavaep.bench.progress=true}, where the benchmark is, on stderr (to place a crash or a hang). */
    private static void progress(String what) {
        if (Boolean.getBoolean("javaep.bench.progress")) {
            System.err.println("[bench-torchvision] " + what);
        }
    }

    private static String formatRow(TorchCase c, JavaCudaResult r, String torchEager, String torchGraph) {
        double ratio = r.graphsMs() / c.graphMs();
        double tolerance = c.type() == ElementType.FLOAT16 ? HALF_TOLERANCE : FLOAT_TOLERANCE;
        return String.format(Locale.ROOT, "| %d | %s | %.3f | %.3f | %.3f | %.3f | %s | %s | %.2f× | %s | %.1e %s |",
                c.batch(), c.dtype(), r.graphsMs(), r.eagerMs(), r.cudnnFusionMs(), r.previousFusionMs(), torchEager,
                torchGraph, ratio,
                ratio <= 1.0 ? "met" : "missed",
                r.relativeError(), r.relativeError() <= tolerance ? "ok" : "**differs**");
    }

    private static final String FUSION = "javaep.cuda.fusion";

    /**
     * Where the GPU time of the case's Runs goes: {@link CudaStepBreakdown}'s tables from a session with
     * {@code javaep.cuda.profileSteps} on (eager Runs, CUDA events around each step), with fusion on and off (off: the
     * bias/activation/Add passes show as their own steps). A failure is printed, not thrown.
     */
    private static void printBreakdown(OrtEnvironment env, TorchCase c) {
        if (c.error() != null) {
            return;
        }
        System.out.printf(Locale.ROOT, "Where the GPU time goes, batch %d %s (`javaep.cuda.profileSteps=true`, %d eager Runs"
                + " after %d warm-up Runs):%n%n", c.batch(), c.dtype(), PROFILED_RUNS, WARM_UP);
        for (String fusion : List.of("on", "off")) {
            progress(c.onnx().getFileName() + ": JavaCuda, step breakdown, fusion " + fusion);
            System.setProperty(FUSION, fusion);
            System.setProperty(CudaStepBreakdown.PROPERTY, "true");
            try {
                TensorData input = input(c.type(), c.inputShape());
                TensorData reference = reference(env, c.float32Onnx(), asFloat32(input)); // the output's shape
                String table = onJavaCuda(env, c, input, reference.shape(), new float[Math.toIntExact(
                        reference.elementCount())], (session, binding) -> {
                    RunTimer.medianMillis(session, binding, WARM_UP, 1);
                    CudaStepBreakdown.reset(); // the first Runs plan the kernels and time cuDNN's algorithms
                    for (int i = 0; i < PROFILED_RUNS; i++) {
                        session.run(binding, null);
                    }
                    return CudaStepBreakdown.table(null);
                });
                System.out.println("`javaep.cuda.fusion=" + fusion + "`: " + table);
            } catch (RuntimeException e) {
                System.out.println("`javaep.cuda.fusion=" + fusion + "`: the breakdown failed: " + e);
                System.out.println();
            } finally {
                System.clearProperty(CudaStepBreakdown.PROPERTY);
                System.setProperty(FUSION, "on");
                CudaStepBreakdown.reset();
            }
        }
        System.out.flush();
    }

    /**
     * Median ms per Run of the case's file on JavaCuda (fallback disabled), device-resident input and output at fixed
     * addresses; {@code output} receives the last Run's output as floats.
     */
    private static double timeOnJavaCuda(OrtEnvironment env, TorchCase c, TensorData input, long[] outputShape,
                                         int iterations, float[] output) {
        return onJavaCuda(env, c, input, outputShape, output, (session, binding) -> RunTimer.medianMillis(session, binding,
                WARM_UP, iterations));
    }

    /** What a bench does with a bound session. */
    @FunctionalInterface
    private interface BoundWork<T> {
        T run(Session session, IoBinding binding);
    }

    /**
     * {@code work} on a session of the case's file on JavaCuda (fallback disabled), device-resident input and output
     * ({@code outputShape}) at fixed addresses; {@code output} receives the last Run's output as floats.
     */
    private static <T> T onJavaCuda(OrtEnvironment env, TorchCase c, TensorData input, long[] outputShape, float[] output,
                                    BoundWork<T> work) {
        int outputLength = output.length;
        EpDevice cuda = env.epDevice(CUDA);
        MemoryInfo deviceMemory = cuda.memoryInfo(DeviceMemoryType.DEFAULT).orElseThrow();
        try (SessionOptions options = env.createSessionOptions().disableCpuEpFallback()
                .appendExecutionProvider(List.of(cuda), Map.of());
             Session session = env.createSession(c.onnx(), options);
             Allocator allocator = session.allocator(deviceMemory);
             OrtTensor hostInput = OrtTensor.fromHost(input);
             OrtTensor deviceInput = OrtTensor.allocate(allocator, input.elementType(), input.shape());
             OrtTensor deviceOutput = OrtTensor.allocate(allocator, input.elementType(), outputShape);
             OrtTensor hostOutput = OrtTensor.fromHost(new TensorData(input.elementType(), outputShape,
                     new byte[outputLength * input.elementType().byteSize()]));
             IoBinding binding = session.createIoBinding()) {
            env.copyTensors(List.of(hostInput), List.of(deviceInput), null);
            binding.bindInput(session.inputNames().getFirst(), deviceInput)
                    .bindOutput(session.outputNames().getFirst(), deviceOutput);
            T result = work.run(session, binding);
            env.copyTensors(List.of(deviceOutput), List.of(hostOutput), null);
            float[] values = asFloat32(hostOutput.toHost()).floats();
            System.arraycopy(values, 0, output, 0, output.length);
            return result;
        }
    }

    /** ORT's CPU EP on the float32 file: the reference output. */
    private static TensorData reference(OrtEnvironment env, Path float32Onnx, TensorData input) {
        try (SessionOptions options = env.createSessionOptions();
             Session session = env.createSession(float32Onnx, options)) {
            return session.run(Map.of(session.inputNames().getFirst(), input)).get(session.outputNames().getFirst());
        }
    }

    /** max|output - reference| over max|reference|; NaN anywhere in the output counts as infinitely wrong. */
    static double relativeError(float[] output, float[] reference) {
        double scale = 0;
        double worst = 0;
        for (int i = 0; i < reference.length; i++) {
            scale = Math.max(scale, Math.abs(reference[i]));
            worst = Math.max(worst, Math.abs(output[i] - reference[i]));
        }
        return Double.isNaN(worst) ? Double.POSITIVE_INFINITY : worst / Math.max(scale, Float.MIN_NORMAL);
    }

    /** Uniform [0, 1) values from a fixed seed, in {@code type}. */
    private static TensorData input(ElementType type, long[] shape) {
        Random random = new Random(3);
        float[] values = new float[Math.toIntExact(Arrays.stream(shape).reduce(1, Math::multiplyExact))];
        for (int i = 0; i < values.length; i++) {
            values[i] = random.nextFloat();
        }
        return type == ElementType.FLOAT ? TensorData.ofFloats(shape, values)
                : new TensorData(ElementType.FLOAT16, shape, EspcnBenchmark.halves(values));
    }

    /** The tensor's values as float32 (float16 widened exactly). */
    private static TensorData asFloat32(TensorData data) {
        if (data.elementType() == ElementType.FLOAT) {
            return data;
        }
        ByteBuffer bytes = ByteBuffer.wrap(data.data()).order(ByteOrder.LITTLE_ENDIAN);
        float[] values = new float[Math.toIntExact(data.elementCount())];
        for (int i = 0; i < values.length; i++) {
            values[i] = Float.float16ToFloat(bytes.getShort(2 * i));
        }
        return TensorData.ofFloats(data.shape(), values);
    }

    /** Runs the script (export + PyTorch timings) to its end; its cases, and every line it printed in {@code log}. */
    private static List<TorchCase> torch(String python, Path script, Path work, List<String> only, int iterations,
                                         List<String> log) throws IOException, InterruptedException {
        if (!Files.exists(script)) {
            log.add("script " + script + " not found");
            return List.of();
        }
        Process process = new ProcessBuilder(python, script.toString(), work.toString(), Integer.toString(iterations),
                String.join(",", only)).redirectErrorStream(true).start();
        List<TorchCase> cases = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                log.add(line);
                String[] f = line.strip().split(" ");
                if (f[0].equals("case") && f.length == 9) {
                    long[] shape = {Integer.parseInt(f[2]), 3, Integer.parseInt(f[4]), Integer.parseInt(f[5])};
                    cases.add(new TorchCase(f[1], Integer.parseInt(f[2]), f[3], shape, Path.of(f[6]),
                            Double.parseDouble(f[7]), Double.parseDouble(f[8]), null));
                } else if (f[0].equals("error") && f.length >= 4) {
                    cases.add(new TorchCase(f[1], Integer.parseInt(f[2]), f[3], null, null, Double.NaN, Double.NaN,
                            String.join(" ", Arrays.asList(f).subList(4, f.length))));
                }
            }
        }
        int exit = process.waitFor();
        if (exit != 0) {
            log.add("script exit " + exit);
            System.out.println("tools/gpu/torchvision_bench.py exited with " + exit + "; its last lines:");
            log.subList(Math.max(0, log.size() - 5), log.size()).forEach(l -> System.out.println("    " + l));
        }
        return cases;
    }
}
