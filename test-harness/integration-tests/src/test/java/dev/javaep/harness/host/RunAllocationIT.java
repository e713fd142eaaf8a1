package dev.javaep.harness.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.TestPaths;
import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.host.EpDevice;
import dev.javaep.host.IoBinding;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Steady-state Java heap allocation per Run of a compiled group on JavaCpuExecutionProvider (issue 13: none): with
 * the tensors bound once, {@code RunWithBinding} in a loop must allocate no more per Run than the same loop on ORT's
 * own CPU EP, give or take {@link #BOUND_BYTES}. The models exercise the bridge's paths (inputs, outputs written by
 * ORT, intermediates in the program's buffer) with Relu kernels, which allocate nothing themselves once compiled.
 *
 * <p>Allocation per Run is deterministic once the JIT has compiled the path; when it has is not, so the loop is
 * measured in batches and passes at the first batch within the bound (the JIT is given up to {@link #MAX_BATCHES}).
 * A path that allocates per Run stays above it in every batch: before issue 13 it was 1.9 KB per Run.
 */
class RunAllocationIT {
    private static final String REGISTRATION = "javaep-run-allocation";
    /**
     * Allowed above ORT CPU's own allocation per Run. Not zero: in one CI run on ORT 1.24.2 (a loaded machine) JavaCpu
     * measured +48 B/Run in every batch, about one tensor record (the bridge builds one when ORT hands it an
     * {@code OrtValue} it did not see on the previous Run); the other nine version runs measured +0. The path this
     * guards against cost 1.9 KB per Run.
     */
    private static final long BOUND_BYTES = 64;
    private static final int BATCH_RUNS = 10_000;
    private static final int MAX_BATCHES = 40;
    private static final long LENGTH = 16;

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"two inputs, two outputs", "chain with intermediates", "every value an output"})
    void steadyStateRunsAllocateNothing(String shape) {
        byte[] model = model(shape);
        try (OrtEnvironment env = OrtHost.shared().createEnvironment(REGISTRATION, OrtHost.LogLevel.WARNING)) {
            env.registerExecutionProviderLibrary(REGISTRATION, TestPaths.loaderLibrary());
            try {
                double ortCpu = bytesPerRun(env, null, model);
                double javaCpu = bytesPerRun(env, env.epDevice("JavaCpuExecutionProvider"), model);
                System.out.printf("[RunAllocationIT] %s: %.1f bytes per Run on JavaCpu, %.1f on ORT CPU (bound: +%d)%n",
                        shape, javaCpu, ortCpu, BOUND_BYTES);
                assertTrue(javaCpu <= ortCpu + BOUND_BYTES, shape + ": a steady-state Run on JavaCpu allocates " + javaCpu
                        + " bytes of Java heap, ORT's CPU EP " + ortCpu + "; the bridge's Run path should allocate nothing");
            } finally {
                env.unregisterExecutionProviderLibrary(REGISTRATION);
            }
        }
    }

    private static byte[] model(String shape) {
        OnnxModelWriter writer = new OnnxModelWriter("allocation").opset(17).input("x1", ElementType.FLOAT, Dim.of(LENGTH));
        switch (shape) {
            case "two inputs, two outputs" -> writer.input("x2", ElementType.FLOAT, Dim.of(LENGTH))
                    .output("y1", ElementType.FLOAT, Dim.of(LENGTH)).output("y2", ElementType.FLOAT, Dim.of(LENGTH))
                    .node("Relu", List.of("x1"), List.of("y1")).node("Relu", List.of("x2"), List.of("y2"));
            case "chain with intermediates" -> writer.output("y", ElementType.FLOAT, Dim.of(LENGTH))
                    .node("Relu", List.of("x1"), List.of("a")).node("Relu", List.of("a"), List.of("b"))
                    .node("Relu", List.of("b"), List.of("y"));
            case "every value an output" -> writer.output("y1", ElementType.FLOAT, Dim.of(LENGTH))
                    .output("y2", ElementType.FLOAT, Dim.of(LENGTH))
                    .node("Relu", List.of("x1"), List.of("y1")).node("Relu", List.of("y1"), List.of("y2"));
            default -> throw new IllegalArgumentException(shape);
        }
        return writer.toByteArray();
    }

    /** The lowest heap allocation per Run over batches of bound Runs (host tensors bound once); {@code device} null: ORT CPU. */
    private static double bytesPerRun(OrtEnvironment env, EpDevice device, byte[] model) {
        List<OrtTensor> tensors = new ArrayList<>();
        try (SessionOptions options = env.createSessionOptions()) {
            if (device != null) {
                options.disableCpuEpFallback().appendExecutionProvider(List.of(device), Map.of());
            }
            try (Session session = env.createSession(model, options); IoBinding binding = session.createIoBinding()) {
                float[] values = new float[(int) LENGTH];
                for (int i = 0; i < values.length; i++) {
                    values[i] = i % 2 == 0 ? i : -i;
                }
                for (String input : session.inputNames()) {
                    OrtTensor tensor = OrtTensor.fromHost(TensorData.ofFloats(new long[] {LENGTH}, values));
                    tensors.add(tensor);
                    binding.bindInput(input, tensor);
                }
                List<OrtTensor> outputs = new ArrayList<>();
                for (String output : session.outputNames()) {
                    OrtTensor tensor = OrtTensor.fromHost(TensorData.ofFloats(new long[] {LENGTH}, new float[(int) LENGTH]));
                    tensors.add(tensor);
                    outputs.add(tensor);
                    binding.bindOutput(output, tensor);
                }
                double lowest = Double.MAX_VALUE;
                for (int batch = 0; batch < MAX_BATCHES && lowest > 0; batch++) {
                    long before = allocatedBytes();
                    for (int i = 0; i < BATCH_RUNS; i++) {
                        session.run(binding, null);
                    }
                    lowest = Math.min(lowest, (allocatedBytes() - before) / (double) BATCH_RUNS);
                }
                float[] relu = values.clone();
                for (int i = 0; i < relu.length; i++) {
                    relu[i] = Math.max(relu[i], 0f);
                }
                for (OrtTensor output : outputs) { // the reused tensors still carry this Run's results
                    assertArrayEquals(relu, output.toHost().floats(), 0f);
                }
                return lowest;
            }
        } finally {
            tensors.forEach(OrtTensor::close);
        }
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
