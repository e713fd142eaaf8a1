package dev.javaep.cli;

import dev.javaep.cli.bench.RunTimer;
import dev.javaep.conformance.ModelComparison;
import dev.javaep.conformance.NodeTestResult;
import dev.javaep.conformance.NodeTestRunner;
import dev.javaep.conformance.OpNodeTests;
import dev.javaep.conformance.kit.CheckGroups;
import dev.javaep.conformance.kit.ConformanceKit;
import dev.javaep.conformance.kit.KitOptions;
import dev.javaep.conformance.kit.ReportWriter;
import dev.javaep.conformance.models.FramePipeline;
import dev.javaep.conformance.models.Png;
import dev.javaep.harness.onnx.OnnxModelReader;
import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * javaep's command line ({@code bin/javaep} in the distribution folder).
 * <pre>
 *   javaep demo                          register libjavaep in a real ORT, list devices, run the built-in model
 *   javaep bench                         print the Java bridge's costs (upcall, downcall, per compiled node)
 *   javaep devices [LIBRARY]             list the EP devices a plugin EP library offers
 *   javaep bench-cuda                   JavaCudaExecutionProvider benchmark tables (needs an NVIDIA GPU)
 *   javaep bench-ortgraph [DIR]         JavaCuda's group CUDA graphs vs ORT's graph capture (enable_cuda_graph=1),
 *                                       with resnet_small from DIR/models.tsv when given (needs an NVIDIA GPU)
 *   javaep bench-espcn [--python PY] [--torch-script PATH]
 *                                       ESPCN x2 1080p on JavaCuda (direct vs cuDNN) vs PyTorch (needs an NVIDIA GPU)
 *   javaep bench-torchvision [--python PY] [--torch-script PATH] [--only A,B] [--iterations N]
 *                                       torchvision architectures (exported by PyTorch) on JavaCuda vs PyTorch eager
 *                                       and CUDA-graph replay, batch 1 and 8, float32 and float16 (needs an NVIDIA GPU)
 *   javaep bench-networks DIR [--threads 1,N] [--only A,B]
 *                                        JavaCpu (fallback disabled) vs ORT's CPU EP at equal intra-op thread counts
 *                                        on the networks of DIR/models.tsv and a 16-activation chain
 *   javaep bench-multigpu DIR [--seconds S] [--only A,B]
 *                                        the networks of DIR/models.tsv on JavaCuda: frames/s of one session on GPU 0
 *                                        vs one session per GPU, each Run from its own thread (needs NVIDIA GPUs)
 *   javaep node-tests DIR [EP] [LIBRARY] [--ops A,B]
 *                                        run ONNX node tests (folders under DIR) on one EP, fallback disabled;
 *                                        --ops keeps the tests whose nodes are all of these op types
 *   javaep op-table DIR [EP] [LIBRARY] [--ops A,B]
 *                                        per op: its single-node node tests on the EP (fallback disabled) and on
 *                                        ORT's CPU EP, as a Markdown table (docs/ops.md); every op found without --ops
 *   javaep compare MODEL [EP] [LIBRARY]  run MODEL on one EP (fallback disabled) and on ORT's CPU EP with the
 *                                        same random inputs, and compare the outputs
 *   javaep conformance [LIBRARY] [--ep NAME] [--device N] [--node-tests DIR] [--node-test-filter REGEX] [--models DIR]
 *                      [--report DIR] [--only GROUP,...] [--timeout S] [--session-cycles N] [--validate] ...
 *                                        the conformance kit: every check group in a child JVM of its own;
 *                                        writes JUnit XML, Markdown and HTML reports; exit 0 only when nothing
 *                                        failed, crashed or timed out (docs/conformance.md)
 * </pre>
 * LIBRARY defaults to the distribution's own libjavaep; any plugin EP library works. EP defaults to
 * JavaCpuExecutionProvider. {@code bin/javaep} puts {@code JAVAEP_CLASSPATH}'s jars on this JVM's class path,
 * so a libjavaep registered here (which joins this JVM) finds the EPs in them. The benchmark of a Vulkan app's frames
 * through JavaCuda (bench-interop) needs LWJGL, which the distribution does not carry: it is examples/vulkan-frames'
 * {@code InteropBenchmark}.
 */
public final class JavaepCli {
    private static final PrintStream OUT = System.out;
    private static final String DEFAULT_EP = "JavaCpuExecutionProvider";

    private JavaepCli() {}

    public static void main(String[] args) throws IOException {
        List<String> rest = new ArrayList<>(Arrays.asList(args));
        Path dist = Path.of(System.getProperty("javaep.dist", "."));
        if (rest.size() >= 2 && rest.getFirst().equals("--dist")) {
            dist = Path.of(rest.get(1));
            rest = rest.subList(2, rest.size());
        }
        String command = rest.isEmpty() ? "demo" : rest.getFirst();
        List<String> params = rest.isEmpty() ? List.of() : rest.subList(1, rest.size());
        Path defaultLibrary = dist.resolve(System.getProperty("os.name").startsWith("Windows") ? "javaep.dll" : "libjavaep.so");
        int status;
        try {
            status = run(command, params, defaultLibrary);
        } catch (UserError e) {
            System.err.println(e.getMessage());
            status = 2;
        }
        System.exit(status);
    }

    /** A benchmark's entry point: they declare what their setup throws (native calls, files, a child process). */
    @FunctionalInterface
    private interface Benchmark {
        void run() throws Throwable;
    }

    /** Runs {@code benchmark}, which prints its own tables; status 0. */
    private static int benchmark(Benchmark benchmark) {
        try {
            benchmark.run();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        return 0;
    }

    private static int run(String command, List<String> params, Path defaultLibrary) throws IOException {
        return switch (command) {
            case "demo" -> demo(defaultLibrary, params.size() >= 2 && params.getFirst().equals("--out")
                    ? Path.of(params.get(1)) : Path.of("javaep-demo"));
            case "bench" -> benchmark(() -> dev.javaep.cli.bench.BridgeBenchmark.run(defaultLibrary));
            case "bench-cuda" -> benchmark(() -> dev.javaep.cli.bench.CudaBenchmark.run(defaultLibrary));
            case "bench-ortgraph" -> benchmark(() -> dev.javaep.cli.bench.OrtGraphCaptureBenchmark.run(defaultLibrary,
                    params.isEmpty() ? null : Path.of(params.getFirst())));
            case "bench-espcn" -> {
                // bench-espcn [--python PY] [--torch-script tools/gpu/espcn_torch.py]
                String python = option(params, "--python", "/opt/torch/.venv/bin/python");
                String script = option(params, "--torch-script", "tools/gpu/espcn_torch.py");
                yield benchmark(() -> dev.javaep.cli.bench.EspcnBenchmark.run(defaultLibrary, python, Path.of(script)));
            }
            case "bench-torchvision" -> {
                // bench-torchvision [--python PY] [--torch-script tools/gpu/torchvision_bench.py] [--only A,B] [--iterations N]
                List<String> rest = new ArrayList<>(params);
                List<String> only = takeList(rest, "--only");
                String python = option(rest, "--python", "/opt/torch/.venv/bin/python");
                String script = option(rest, "--torch-script", "tools/gpu/torchvision_bench.py");
                int iterations = Integer.parseInt(option(rest, "--iterations", "100"));
                yield benchmark(() -> dev.javaep.cli.bench.TorchvisionBenchmark.run(defaultLibrary, python, Path.of(script),
                        only, iterations));
            }
            case "bench-networks" -> {
                List<String> positional = new ArrayList<>(params);
                List<String> threads = takeList(positional, "--threads");
                List<String> only = takeList(positional, "--only");
                if (positional.isEmpty()) {
                    yield usage();
                }
                int all = Runtime.getRuntime().availableProcessors();
                dev.javaep.cli.bench.NetworkBenchmark.run(defaultLibrary, Path.of(positional.getFirst()),
                        threads.isEmpty() ? (all > 1 ? List.of(1, all) : List.of(1)) : threads.stream().map(Integer::parseInt).toList(),
                        only);
                yield 0;
            }
            case "bench-multigpu" -> {
                List<String> positional = new ArrayList<>(params);
                List<String> only = takeList(positional, "--only");
                double seconds = Double.parseDouble(option(positional, "--seconds", "5"));
                int at = positional.indexOf("--seconds");
                if (at >= 0) {
                    positional.subList(at, Math.min(at + 2, positional.size())).clear(); // DIR may come after it
                }
                if (positional.isEmpty()) {
                    yield usage();
                }
                yield benchmark(() -> dev.javaep.cli.bench.MultiGpuBenchmark.run(defaultLibrary,
                        Path.of(positional.getFirst()), seconds, only));
            }
            case "devices" -> devices(params.isEmpty() ? defaultLibrary : Path.of(params.getFirst()));
            case "node-tests" -> {
                NodeTestArgs a = NodeTestArgs.parse(params, defaultLibrary);
                yield a == null ? usage() : nodeTests(a.dir(), a.epName(), a.library(), a.ops());
            }
            case "op-table" -> {
                NodeTestArgs a = NodeTestArgs.parse(params, defaultLibrary);
                yield a == null ? usage() : opTable(a.dir(), a.epName(), a.library(), a.ops());
            }
            case "compare" -> params.isEmpty() ? usage() : compare(Path.of(params.getFirst()),
                    params.size() > 1 ? params.get(1) : DEFAULT_EP,
                    params.size() > 2 ? Path.of(params.get(2)) : defaultLibrary);
            case "conformance" -> conformance(params, defaultLibrary);
            default -> usage();
        };
    }

    private static int conformance(List<String> params, Path defaultLibrary) {
        List<String> args = new ArrayList<>(params);
        if (args.isEmpty() || args.getFirst().startsWith("--")) {
            args.addFirst(defaultLibrary.toString());
        }
        KitOptions options;
        try {
            options = KitOptions.parse(args);
            if (args.contains("--validate")) {
                options = options.withValidation(defaultLibrary); // the layer is this distribution's libjavaep
            }
        } catch (IllegalArgumentException e) {
            throw new UserError("javaep conformance: " + e.getMessage() + "\nusage: javaep conformance [LIBRARY] [--ep NAME]"
                    + " [--device N] [--node-tests DIR] [--node-test-filter REGEX] [--node-test-limit N] [--models DIR] [--report DIR]"
                    + " [--only GROUP,...] [--timeout S] [--registration-cycles N] [--session-cycles N] [--threads N]"
                    + " [--runs N] [--validate]; groups: " + String.join(", ", CheckGroups.names()));
        }
        var report = ConformanceKit.run(options,
                r -> OUT.printf("%-8s %-38s %s%n", r.verdict(), r.id(), r.reason().length() > 160
                        ? r.reason().substring(0, 157) + "..." : r.reason()));
        List<Path> files = ReportWriter.writeAll(report);
        OUT.println();
        OUT.print(ReportWriter.console(report));
        OUT.println("reports: " + files.stream().map(Path::toString).collect(Collectors.joining(", ")));
        return report.exitCode();
    }

    /** What the user must change, said on stderr with exit code 2 instead of a stack trace. */
    private static final class UserError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        UserError(String message) {
            super(message);
        }
    }

    /** The EP's device, or a {@link UserError} that says how to make the EP appear. */
    private static EpDevice epDevice(OrtEnvironment env, String epName) {
        List<EpDevice> devices = env.epDevices();
        return devices.stream().filter(d -> d.epName().equals(epName)).findFirst().orElseThrow(() -> new UserError(
                "javaep: no EP device of " + epName + " (devices: " + devices.stream().map(EpDevice::epName).toList()
                        + "): put the EP's jar on JAVAEP_CLASSPATH (bin/javaep adds it to its class path), check the "
                        + "EP's name, and if JAVAEP_FACTORIES is set, name the EP there"));
    }

    private static int usage() {
        System.err.println("usage: javaep [demo [--out DIR] | bench | bench-cuda | bench-ortgraph [DIR] | bench-espcn | bench-torchvision [--only A,B]"
                + " | bench-networks DIR [--threads 1,N] [--only A,B] | bench-multigpu DIR [--seconds S] [--only A,B]"
                + " | devices [LIBRARY]"
                + " | node-tests DIR [EP] [LIBRARY] [--ops A,B] | op-table DIR [EP] [LIBRARY] [--ops A,B]"
                + " | compare MODEL [EP] [LIBRARY] | conformance [LIBRARY] [--ep NAME] [--device N] [--node-tests DIR] [--report DIR]"
                + " [--only GROUP,...] [--timeout S] ...]");
        return 2;
    }

    /** What node-tests and op-table take: {@code DIR [EP] [LIBRARY] [--ops A,B]}. */
    private record NodeTestArgs(Path dir, String epName, Path library, Set<String> ops) {
        /** The arguments, with the defaults for those left out; null without a DIR. */
        static NodeTestArgs parse(List<String> params, Path defaultLibrary) {
            List<String> positional = new ArrayList<>(params);
            Set<String> ops = takeOps(positional);
            if (positional.isEmpty()) {
                return null;
            }
            return new NodeTestArgs(Path.of(positional.getFirst()), positional.size() > 1 ? positional.get(1) : DEFAULT_EP,
                    positional.size() > 2 ? Path.of(positional.get(2)) : defaultLibrary, ops);
        }
    }

    /** Removes "OPTION A,B" from {@code params}; its values, or an empty list when it is absent. */
    private static List<String> takeList(List<String> params, String option) {
        return takeList(params, option, "");
    }

    /** {@link #takeList(List, String)}, with {@code what} saying what the list names in the error for a missing one. */
    private static List<String> takeList(List<String> params, String option, String what) {
        int at = params.indexOf(option);
        if (at < 0) {
            return List.of();
        }
        if (at + 1 >= params.size()) {
            throw new UserError("javaep: " + option + " needs a comma-separated list" + what);
        }
        List<String> values = Arrays.stream(params.get(at + 1).split(",")).map(String::strip).filter(v -> !v.isEmpty()).toList();
        params.subList(at, at + 2).clear();
        return values;
    }

    /** Removes "--ops A,B" from {@code params}; the op types named, or an empty set for every test. */
    private static Set<String> takeOps(List<String> params) {
        return Set.copyOf(takeList(params, "--ops", " of op types, e.g. --ops Add,Relu"));
    }

    /** Whether every node of the test's model is an ONNX-domain op in {@code ops}. */
    private static boolean onlyOps(Path test, Set<String> ops) {
        try {
            var nodes = OnnxModelReader.read(test.resolve("model.onnx")).graph().nodes();
            return !nodes.isEmpty() && nodes.stream()
                    .allMatch(n -> (n.domain().isEmpty() || n.domain().equals("ai.onnx")) && ops.contains(n.opType()));
        } catch (IOException | RuntimeException e) {
            return false; // a model the reader cannot parse is not one of these ops' tests
        }
    }

    private static int compare(Path model, String epName, Path library) throws IOException {
        try (OrtEnvironment env = OrtHost.shared().createEnvironment("javaep-compare", OrtHost.LogLevel.WARNING)) {
            env.registerExecutionProviderLibrary("javaep-compare", library);
            try {
                ModelComparison.Result result = ModelComparison.run(env, epDevice(env, epName), model);
                OUT.printf("%s on %s (CPU fallback disabled) vs ORT's CPUExecutionProvider, random inputs %s%n", model,
                        epName, result.inputs());
                result.mismatches().forEach(m -> OUT.println("MISMATCH " + m));
                OUT.printf("%s: %s, max |difference| %.2e%n", epName, result.matches() ? "outputs match" : "outputs differ",
                        result.maxAbsDifference());
                return result.matches() ? 0 : 1;
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-compare");
            }
        }
    }

    private static int demo(Path library, Path outDir) throws IOException {
        OrtHost host = OrtHost.shared();
        OUT.printf("ONNX Runtime %s (C API %d) from %s%n", host.version(), host.api().version(), host.library());
        try (OrtEnvironment env = host.createEnvironment("javaep-demo", OrtHost.LogLevel.WARNING)) {
            long start = System.nanoTime();
            env.registerExecutionProviderLibrary("javaep", library);
            OUT.printf("RegisterExecutionProviderLibrary(%s): %.1f ms (this JVM joined, none booted)%n%n", library,
                    (System.nanoTime() - start) / 1e6);
            try {
                printDevices(env.epDevices());
                return runFramePipeline(env, env.epDevice("JavaCpuExecutionProvider"), outDir);
            } finally {
                env.unregisterExecutionProviderLibrary("javaep");
            }
        }
    }

    /**
     * The demo's default: what a video app does with javaep. A generated RGBA frame goes through the frame-pipeline
     * network ({@link FramePipeline}: slice alpha, NCHW, normalise, a 2x sub-pixel convolution upscaler, quantise,
     * alpha re-attached) with every node on JavaCpu, is checked against ORT's CPU EP, and both frames are written as
     * PNG files.
     */
    private static int runFramePipeline(OrtEnvironment env, EpDevice javaCpu, Path outDir) throws IOException {
        int height = 180;
        int width = 320;
        byte[] frame = FramePipeline.testFrame(height, width);
        Map<String, TensorData> input = Map.of("frame", new TensorData(dev.javaep.spi.ElementType.UINT8,
                new long[] {1, height, width, 4}, frame));
        OUT.printf("%nBuilt-in network: the frame pipeline (RGBA uint8 frame -> Slice alpha, Transpose, normalise, "
                + "2x sub-pixel Conv upscaler + DepthToSpace, Clip, Round, Cast, alpha re-attached), %dx%d -> %dx%d%n",
                width, height, width * FramePipeline.SCALE, height * FramePipeline.SCALE);
        byte[] model = FramePipeline.model();
        try (SessionOptions onJava = env.createSessionOptions().disableCpuEpFallback()
                .appendExecutionProvider(List.of(javaCpu), Map.of());
             SessionOptions onOrt = env.createSessionOptions();
             Session javaSession = env.createSession(model, onJava);
             Session ortSession = env.createSession(model, onOrt)) {
            byte[] ours = javaSession.run(input).get("upscaled").data();
            byte[] reference = ortSession.run(input).get("upscaled").data();
            int differing = 0;
            int worst = 0;
            for (int i = 0; i < ours.length; i++) {
                int d = Math.abs((ours[i] & 0xff) - (reference[i] & 0xff));
                differing += d == 0 ? 0 : 1;
                worst = Math.max(worst, d);
            }
            Files.createDirectories(outDir);
            Path in = outDir.resolve("frame.png");
            Path out = outDir.resolve("upscaled.png");
            Png.write(in, frame, height, width);
            Png.write(out, ours, height * FramePipeline.SCALE, width * FramePipeline.SCALE);
            OUT.printf("every node on JavaCpuExecutionProvider (CPU fallback disabled); vs ORT CPUExecutionProvider: "
                    + "%d of %d bytes differ, by at most %d%n", differing, ours.length, worst);
            OUT.printf("wrote %s (input) and %s (output)%n%n", in.toAbsolutePath(), out.toAbsolutePath());
            double javaMedian = RunTimer.medianMicros(javaSession, input, 50, 10);
            double ortMedian = RunTimer.medianMicros(ortSession, input, 50, 10);
            OUT.println("| EP | median Run (µs) | ratio to ORT CPU |");
            OUT.println("|---|---:|---:|");
            OUT.printf("| JavaCpuExecutionProvider | %.1f | %.2f |%n", javaMedian, javaMedian / ortMedian);
            OUT.printf("| ORT CPUExecutionProvider | %.1f | 1.00 |%n", ortMedian);
            // Round and Cast on ties may differ by one step between implementations; anything more is a bug.
            return worst <= 1 ? 0 : 1;
        }
    }

    private static int devices(Path library) {
        try (OrtEnvironment env = OrtHost.shared().createEnvironment("javaep-devices", OrtHost.LogLevel.WARNING)) {
            env.registerExecutionProviderLibrary("javaep-devices", library);
            try {
                printDevices(env.epDevices());
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-devices");
            }
        }
        return 0;
    }

    private static void printDevices(List<EpDevice> devices) {
        OUT.println("| EP | vendor | hardware | hardware metadata | EP metadata |");
        OUT.println("|---|---|---|---|---|");
        for (EpDevice d : devices) {
            OUT.printf("| %s | %s | %s (vendor 0x%04x %s) | %s | %s |%n", d.epName(), d.epVendor(), d.hardwareType(),
                    d.hardwareVendorId(), d.hardwareVendor(), new java.util.TreeMap<>(d.hardwareMetadata()),
                    new java.util.TreeMap<>(d.epMetadata()));
        }
    }

    private static int nodeTests(Path dir, String epName, Path library, Set<String> ops) throws IOException {
        List<Path> tests;
        try (Stream<Path> entries = Files.list(dir)) {
            tests = Files.exists(dir.resolve("model.onnx")) ? List.of(dir)
                    : entries.filter(p -> Files.exists(p.resolve("model.onnx"))).sorted().toList();
        }
        if (!ops.isEmpty()) {
            tests = tests.stream().filter(t -> onlyOps(t, ops)).toList();
        }
        try (OrtEnvironment env = OrtHost.shared().createEnvironment("javaep-node-tests", OrtHost.LogLevel.ERROR)) {
            env.registerExecutionProviderLibrary("javaep-node-tests", library);
            try {
                NodeTestRunner runner = new NodeTestRunner(env, epDevice(env, epName));
                long passed = 0;
                long failed = 0;
                for (Path test : tests) {
                    NodeTestResult result = runner.run(test);
                    OUT.println(result);
                    passed += result.passed() ? 1 : 0;
                    failed += result.outcome() == NodeTestResult.Outcome.FAILED ? 1 : 0;
                }
                OUT.printf("%s: %d passed, %d failed, %d not supported%n", epName, passed, failed, tests.size() - passed - failed);
                return failed == 0 ? 0 : 1;
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-node-tests");
            }
        }
    }

    private static int opTable(Path dir, String epName, Path library, Set<String> ops) throws IOException {
        Set<String> selected = ops;
        if (selected.isEmpty()) {
            try (Stream<Path> entries = Files.list(dir)) {
                selected = entries.filter(p -> Files.exists(p.resolve("model.onnx"))).map(OpNodeTests::opOf)
                        .flatMap(java.util.Optional::stream).collect(java.util.stream.Collectors.toCollection(java.util.TreeSet::new));
            }
        }
        try (OrtEnvironment env = OrtHost.shared().createEnvironment("javaep-op-table", OrtHost.LogLevel.FATAL)) {
            env.registerExecutionProviderLibrary("javaep-op-table", library);
            try {
                var rows = OpNodeTests.run(OpNodeTests.byOp(dir, selected), new NodeTestRunner(env, epDevice(env, epName)),
                        NodeTestRunner.onOrtCpu(env));
                OUT.print(OpNodeTests.markdown(epName, rows));
                return rows.stream().allMatch(r -> r.behindOrtCpu().isEmpty()) ? 0 : 1;
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-op-table");
            }
        }
    }

    /** The value after {@code name} in {@code params}, or {@code fallback}. */
    private static String option(List<String> params, String name, String fallback) {
        int i = params.indexOf(name);
        return i >= 0 && i + 1 < params.size() ? params.get(i + 1) : fallback;
    }
}
