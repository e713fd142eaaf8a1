package dev.javaep.harness.cli;

import dev.javaep.harness.bench.RunTimer;
import dev.javaep.harness.conformance.NodeTestResult;
import dev.javaep.harness.conformance.NodeTestRunner;
import dev.javaep.harness.models.Models;
import dev.javaep.harness.ort.EpDevice;
import dev.javaep.harness.ort.OrtEnvironment;
import dev.javaep.harness.ort.OrtHost;
import dev.javaep.harness.ort.Session;
import dev.javaep.harness.ort.SessionOptions;
import dev.javaep.harness.ort.TensorData;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * javaep's command line ({@code bin/javaep} in the distribution folder).
 * <pre>
 *   javaep demo                          register libjavaep in a real ORT, list devices, run the built-in model
 *   javaep bench                         print the Java bridge's costs (upcall, downcall, per compiled node)
 *   javaep devices [LIBRARY]             list the EP devices a plugin EP library offers
 *   javaep bench-cuda                   JavaCudaExecutionProvider benchmark tables (needs an NVIDIA GPU)
 *   javaep bench-interop                Vulkan app → JavaCuda: copy path vs zero-copy interop (needs an NVIDIA GPU and Vulkan)
 *   javaep node-tests DIR [EP] [LIBRARY] run ONNX node tests (folders under DIR) on one EP, fallback disabled
 * </pre>
 * LIBRARY defaults to the distribution's own libjavaep; any plugin EP library works.
 */
public final class JavaepCli {
    private static final PrintStream OUT = System.out;

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
        int status = switch (command) {
            case "demo" -> demo(defaultLibrary);
            case "bench" -> {
                try {
                    dev.javaep.harness.bench.BridgeBenchmark.run(defaultLibrary);
                } catch (Throwable t) {
                    throw new IllegalStateException(t);
                }
                yield 0;
            }
            case "bench-cuda" -> {
                try {
                    dev.javaep.harness.bench.CudaBenchmark.run(defaultLibrary);
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
                yield 0;
            }
            case "bench-interop" -> {
                try {
                    yield dev.javaep.harness.bench.InteropBenchmark.run(defaultLibrary);
                } catch (dev.javaep.harness.bench.InteropBenchmark.Unavailable e) {
                    System.err.println("javaep bench-interop: cannot run here: " + e.getMessage());
                    yield 3;
                }
            }
            case "devices" -> devices(params.isEmpty() ? defaultLibrary : Path.of(params.getFirst()));
            case "node-tests" -> nodeTests(Path.of(params.getFirst()),
                    params.size() > 1 ? params.get(1) : "JavaCpuExecutionProvider",
                    params.size() > 2 ? Path.of(params.get(2)) : defaultLibrary);
            default -> {
                System.err.println("usage: javaep [demo | bench | bench-cuda | bench-interop | devices [LIBRARY] | node-tests DIR [EP] [LIBRARY]]");
                yield 2;
            }
        };
        System.exit(status);
    }

    private static int demo(Path library) {
        OrtHost host = OrtHost.shared();
        OUT.printf("ONNX Runtime %s (C API %d) from %s%n", host.version(), host.api().version(), host.library());
        try (OrtEnvironment env = host.createEnvironment("javaep-demo", OrtHost.LogLevel.WARNING)) {
            long start = System.nanoTime();
            env.registerExecutionProviderLibrary("javaep", library);
            OUT.printf("RegisterExecutionProviderLibrary(%s): %.1f ms (this JVM joined, none booted)%n%n", library,
                    (System.nanoTime() - start) / 1e6);
            try {
                printDevices(env.epDevices());
                return runDemoModel(env, env.epDevice("JavaCpuExecutionProvider"));
            } finally {
                env.unregisterExecutionProviderLibrary("javaep");
            }
        }
    }

    private static int runDemoModel(OrtEnvironment env, EpDevice javaCpu) {
        byte[] model = Models.mlp();
        int batch = 8;
        long[] shape = {batch, Models.FEATURES};
        Map<String, TensorData> input = Map.of("x", TensorData.ofFloats(shape, Models.mlpInput(batch)));
        OUT.printf("%nBuilt-in model: MLP %d→%d→%d (MatMul, Add, Relu, Gemm, Softmax), batch %d%n", Models.FEATURES,
                Models.HIDDEN, Models.CLASSES, batch);
        try (SessionOptions onJava = env.createSessionOptions().disableCpuEpFallback()
                .appendExecutionProvider(List.of(javaCpu), Map.of());
             SessionOptions onOrt = env.createSessionOptions();
             Session javaSession = env.createSession(model, onJava);
             Session ortSession = env.createSession(model, onOrt)) {
            float[] ours = javaSession.run(input).get("probabilities").floats();
            float[] reference = ortSession.run(input).get("probabilities").floats();
            double maxDiff = 0;
            for (int i = 0; i < ours.length; i++) {
                maxDiff = Math.max(maxDiff, Math.abs(ours[i] - reference[i]));
            }
            OUT.print("probabilities[0] on JavaCpuExecutionProvider:");
            for (int c = 0; c < Models.CLASSES; c++) {
                OUT.printf(" %.4f", ours[c]);
            }
            OUT.printf("%nmax |JavaCpuExecutionProvider − ORT CPUExecutionProvider| = %.2e%n%n", maxDiff);
            double javaMedian = RunTimer.medianMicros(javaSession, input, 2000, 500);
            double ortMedian = RunTimer.medianMicros(ortSession, input, 2000, 500);
            OUT.println("| EP | median Run (µs) | ratio to ORT CPU |");
            OUT.println("|---|---:|---:|");
            OUT.printf("| JavaCpuExecutionProvider | %.1f | %.2f |%n", javaMedian, javaMedian / ortMedian);
            OUT.printf("| ORT CPUExecutionProvider | %.1f | 1.00 |%n", ortMedian);
            return maxDiff < 1e-4 ? 0 : 1;
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

    private static int nodeTests(Path dir, String epName, Path library) throws IOException {
        List<Path> tests;
        try (Stream<Path> entries = Files.list(dir)) {
            tests = Files.exists(dir.resolve("model.onnx")) ? List.of(dir)
                    : entries.filter(p -> Files.exists(p.resolve("model.onnx"))).sorted().toList();
        }
        try (OrtEnvironment env = OrtHost.shared().createEnvironment("javaep-node-tests", OrtHost.LogLevel.ERROR)) {
            env.registerExecutionProviderLibrary("javaep-node-tests", library);
            try {
                NodeTestRunner runner = new NodeTestRunner(env, env.epDevice(epName));
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
}
