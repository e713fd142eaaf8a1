package dev.javaep.harness.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.bridge.GraphCaptureBridge;
import dev.javaep.cli.bench.OrtGraphCaptureBenchmark;
import dev.javaep.cli.bench.OrtGraphCaptureBenchmark.BoundSession;
import dev.javaep.cli.bench.OrtGraphCaptureBenchmark.Workload;
import dev.javaep.harness.TestPaths;
import dev.javaep.harness.networks.ExportedNetworks;
import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * JavaCuda in ONNX Runtime's own graph capture ({@code enable_cuda_graph=1}, ORT ≥ 1.26): with input and output bound
 * at fixed device addresses, Runs with new input values each time give what a session without capture gives, and after
 * ORT's first Run (two warm-ups and the recording, which ORT runs in one call) every Run is a ReplayGraph. A model with
 * a node JavaCuda cannot take is refused by ORT, which needs every node on the EP to capture.
 */
@Tag("gpu")
class OrtGraphCaptureIT {
    private static final int RUNS = 8;
    private static final String LIBRARY = "javaep-ortgraph-it";
    private static OrtEnvironment env;
    private static EpDevice cuda;

    /** Registers javaep once, or skips the test visibly: no GPU, or an ORT without graph capture for plugin EPs. */
    private static void registerOrSkip() {
        String version = OrtHost.shared().version();
        assumeTrue(Integer.parseInt(version.split("\\.")[1]) >= 26,
                "GPU test skipped: ORT graph capture needs ONNX Runtime 1.26 (OrtEp::IsGraphCaptureEnabled); this is " + version);
        CudaGpu.driver();
        if (env == null) {
            env = OrtHost.shared().createEnvironment(LIBRARY, OrtHost.LogLevel.WARNING);
            env.registerExecutionProviderLibrary(LIBRARY, TestPaths.loaderLibrary());
        }
        cuda = CudaGpu.device(env);
    }

    @AfterAll
    static void unregister() {
        if (env == null) {
            return;
        }
        try (OrtEnvironment registered = env) {
            registered.unregisterExecutionProviderLibrary(LIBRARY);
        }
    }

    @Test
    void replaysOfTheReluChainMlpAndResnetEqualRunsWithoutCapture() throws Exception {
        registerOrSkip();
        for (Workload w : OrtGraphCaptureBenchmark.workloads(ExportedNetworks.directory())) {
            if (w.name().startsWith("Relu on 1080")) {
                continue; // the benchmark's; 33 MB per Run adds nothing here but time
            }
            replaysEqualEagerRuns(w);
        }
    }

    private static void replaysEqualEagerRuns(Workload w) {
        long[] outputShape = OrtGraphCaptureBenchmark.referenceOutput(env, w, w.data()).shape();
        Random random = new Random(w.name().hashCode());
        try (BoundSession captured = new BoundSession(env, cuda, w, outputShape, true);
             BoundSession eager = new BoundSession(env, cuda, w, outputShape, false)) {
            long replays = GraphCaptureBridge.replays();
            long executorRuns = GraphCaptureBridge.capturedRuns();
            for (int run = 0; run < RUNS; run++) {
                TensorData input = randomLike(w.data(), random);
                captured.write(input);
                eager.write(input);
                captured.run();
                eager.run();
                assertClose(eager.read(), captured.read(), w.name() + ", Run " + run);
            }
            long replayed = GraphCaptureBridge.replays() - replays;
            long ranThroughExecutor = GraphCaptureBridge.capturedRuns() - executorRuns;
            System.out.printf("%s: %d Runs, %d through ORT's executor (warm-ups and the recording), %d ReplayGraph%n",
                    w.name(), RUNS, ranThroughExecutor, replayed);
            assertEquals(3, ranThroughExecutor, w.name() + ": two warm-ups and the recording");
            // ORT runs the warm-ups and the recording inside the first Run; were a runtime not to, three Runs would
            assertTrue(replayed == RUNS - 1 || replayed == RUNS - 3, w.name() + ": every later Run a replay, not " + replayed);
        }
    }

    @Test
    void aNodeJavaCudaCannotTakeMakesOrtRefuseCaptureWithItsOwnMessage() {
        registerOrSkip();
        // Hardmax has no JavaCuda kernel: it falls back to ORT's CPU EP, which ORT's capture does not allow.
        byte[] model = new OnnxModelWriter("relu_hardmax").opset(17)
                .input("x", ElementType.FLOAT, Dim.of(1024)).output("y", ElementType.FLOAT, Dim.of(1024))
                .node("Relu", List.of("x"), List.of("r"))
                .node("Hardmax", List.of("r"), List.of("y"))
                .toByteArray();
        RuntimeException refused = assertThrows(RuntimeException.class, () -> {
            try (SessionOptions options = env.createSessionOptions()
                    .appendExecutionProvider(List.of(cuda), Map.of(OrtGraphCaptureBenchmark.CAPTURE_OPTION, "1"));
                 Session session = env.createSession(model, options)) {
                session.run(Map.of("x", TensorData.ofFloats(new long[] {1024}, new float[1024])));
            }
        });
        System.out.println("ORT refuses capture with a CPU node: " + refused.getMessage());
        String message = refused.getMessage().toLowerCase(Locale.ROOT);
        assertTrue(message.contains("graph capture") || message.contains("cuda graph"), refused.getMessage());
    }

    private static TensorData randomLike(TensorData like, Random random) {
        float[] values = new float[(int) like.elementCount()];
        for (int i = 0; i < values.length; i++) {
            values[i] = random.nextFloat() * 2 - 1;
        }
        return TensorData.ofFloats(like.shape(), values);
    }

    private static void assertClose(float[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) {
            float tolerance = 1e-4f * Math.max(1, Math.abs(expected[i]));
            assertEquals(expected[i], actual[i], tolerance, what + ": element " + i);
        }
    }
}
