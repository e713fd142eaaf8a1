package dev.javaep.harness.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.harness.JavaepRegistration;
import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.harness.partition.OrtProfile;
import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * ORT's profile of a JavaCuda group: each step of the compiled node appears as {@code javaep:<node>} with its op and
 * its device time from CUDA events recorded around it on the Run's stream ({@code device_us} > 0, and the event's
 * duration), read after the Runs without stalling them.
 */
@Tag("gpu")
class CudaProfilerIT {
    private static final String REGISTRATION = "javaep-cuda-profiler";
    @RegisterExtension
    static final JavaepRegistration JAVAEP = new JavaepRegistration(REGISTRATION);

    @TempDir
    Path temp;

    @Test
    void ortsProfileHoldsEachStepsDeviceTime() throws Exception {
        assumeTrue(Integer.parseInt(OrtHost.shared().version().split("\\.")[1]) >= 25,
                "ORT " + OrtHost.shared().version() + " has no OrtEp::CreateProfiler (API 25)");
        EpDevice device = CudaGpu.device(JAVAEP.env());
        int n = 1 << 20; // large enough that each kernel takes microseconds on the device
        byte[] model = new OnnxModelWriter("profiled_cuda_group")
                .input("x", ElementType.FLOAT, Dim.of(n))
                .input("y", ElementType.FLOAT, Dim.of(n))
                .output("out", ElementType.FLOAT, Dim.of(n))
                .node("Add", List.of("x", "y"), List.of("sum"))
                .node("Relu", List.of("sum"), List.of("relu"))
                .node("Mul", List.of("relu", "y"), List.of("out"))
                .toByteArray();
        float[] x = new float[n];
        float[] y = new float[n];
        for (int i = 0; i < n; i++) {
            x[i] = (i % 7) - 3f;
            y[i] = (i % 5) * 0.5f;
        }
        Map<String, TensorData> inputs = Map.of("x", TensorData.ofFloats(new long[] {n}, x),
                "y", TensorData.ofFloats(new long[] {n}, y));
        int runs = 3;
        String profile;
        try (SessionOptions options = JAVAEP.env().createSessionOptions().disableCpuEpFallback()
                .enableProfiling(temp.resolve("javaep_cuda_profile").toString())
                .appendExecutionProvider(List.of(device), Map.of());
             Session session = JAVAEP.env().createSession(model, options)) {
            for (int run = 0; run < runs; run++) {
                float[] out = session.run(inputs).get("out").floats();
                assertEquals(Math.max(x[12] + y[12], 0f) * y[12], out[12], 1e-6f);
            }
            profile = session.endProfiling();
        }
        Files.readAllLines(Path.of(profile)).stream().filter(l -> l.contains("javaep:")).limit(8)
                .forEach(l -> System.out.println("[CudaProfilerIT] " + l.strip()));
        List<OrtProfile.Event> steps = OrtProfile.read(Path.of(profile)).stream()
                .filter(e -> e.name().startsWith("javaep:") && e.args().containsKey("op")).toList();
        assertEquals(3 * runs, steps.size(), () -> "one event per step per Run: " + steps);
        assertEquals(runs, steps.stream().filter(e -> e.args().get("op").equals("Relu")).count());
        for (OrtProfile.Event step : steps) {
            assertEquals(CudaGpu.EP, step.args().get("ep"), step::toString);
            double deviceMicros = Double.parseDouble(step.args().get("device_us"));
            assertTrue(deviceMicros > 0, () -> "a device time from the step's CUDA events: " + step + " " + step.args());
            assertEquals((long) deviceMicros, step.durationMicros(), 1, "the event lasts its device time");
            assertTrue(Double.parseDouble(step.args().get("queue_us")) >= 0, step.args()::toString);
        }
    }
}
