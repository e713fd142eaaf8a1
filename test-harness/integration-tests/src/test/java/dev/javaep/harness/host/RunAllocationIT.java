package dev.javaep.harness.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.TestPaths;
import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.harness.onnx.OnnxTensorData;
import dev.javaep.host.EpDevice;
import dev.javaep.host.IoBinding;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Steady-state Java heap allocation per Run of a compiled group on JavaCpuExecutionProvider (issue 13: none): with
 * the tensors bound once, {@code RunWithBinding} in a loop must allocate no more per Run than the same loop on ORT's
 * own CPU EP, give or take {@link #BOUND_BYTES}. The Relu models exercise the bridge's paths (inputs, outputs written
 * by ORT, intermediates in the program's buffer); the others the kernels that plan their shape work once per input
 * shape instead of per Run: binary elementwise with broadcasting, MatMul, Conv (weights as initializers), Reduce (axes
 * as an attribute, and as an int64 initializer whose values the plan reads). Each model's
 * outputs on JavaCpu are checked against ORT CPU's after the loop.
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
    @ValueSource(strings = {"two inputs, two outputs", "chain with intermediates", "every value an output",
            "Add, same shapes", "Mul, bias broadcast", "MatMul", "Conv", "ReduceMean over H, W", "ReduceSum, axes as an input"})
    void steadyStateRunsAllocateNothing(String shape) {
        byte[] model = model(shape);
        Map<String, long[]> shapes = shapes(shape);
        try (OrtEnvironment env = OrtHost.shared().createEnvironment(REGISTRATION, OrtHost.LogLevel.WARNING)) {
            env.registerExecutionProviderLibrary(REGISTRATION, TestPaths.loaderLibrary());
            try {
                Measured ort = bytesPerRun(env, null, model, shapes);
                Measured java = bytesPerRun(env, env.epDevice("JavaCpuExecutionProvider"), model, shapes);
                double ortCpu = ort.bytesPerRun();
                double javaCpu = java.bytesPerRun();
                for (int i = 0; i < ort.outputs().size(); i++) { // the reused tensors still carry the last Run's results
                    assertArrayEquals(ort.outputs().get(i), java.outputs().get(i), 1e-4f, shape + ": output " + i);
                }
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
        OnnxModelWriter writer = new OnnxModelWriter("allocation").opset(17);
        Map<String, long[]> shapes = shapes(shape);
        shapes.forEach((name, dims) -> {
            Dim[] d = java.util.Arrays.stream(dims).mapToObj(Dim::of).toArray(Dim[]::new);
            if (name.startsWith("x")) {
                writer.input(name, ElementType.FLOAT, d);
            } else {
                writer.output(name, ElementType.FLOAT, d);
            }
        });
        switch (shape) {
            case "two inputs, two outputs" -> writer
                    .node("Relu", List.of("x1"), List.of("y1")).node("Relu", List.of("x2"), List.of("y2"));
            case "chain with intermediates" -> writer
                    .node("Relu", List.of("x1"), List.of("a")).node("Relu", List.of("a"), List.of("b"))
                    .node("Relu", List.of("b"), List.of("y"));
            case "every value an output" -> writer
                    .node("Relu", List.of("x1"), List.of("y1")).node("Relu", List.of("y1"), List.of("y2"));
            case "Add, same shapes" -> writer.node("Add", List.of("x1", "x2"), List.of("y"));
            case "Mul, bias broadcast" -> writer.initializer("bias", values(8), 8).node("Mul", List.of("x1", "bias"), List.of("y"));
            case "MatMul" -> writer.initializer("w", values(32 * 16), 32, 16).node("MatMul", List.of("x1", "w"), List.of("y"));
            case "Conv" -> writer.initializer("w", values(8 * 4 * 3 * 3), 8, 4, 3, 3).initializer("b", values(8), 8)
                    .node("Conv", List.of("x1", "w", "b"), List.of("y"), new Attribute.IntList("pads", List.of(1L, 1L, 1L, 1L)));
            case "ReduceMean over H, W" -> writer.node("ReduceMean", List.of("x1"), List.of("y"), new Attribute.IntList("axes", List.of(2L, 3L)));
            case "ReduceSum, axes as an input" -> writer // opset 13 on: axes are input 1
                    .initializer(new OnnxTensorData("axes", ElementType.INT64, new long[] {1}, new byte[] {1, 0, 0, 0, 0, 0, 0, 0}))
                    .node("ReduceSum", List.of("x1", "axes"), List.of("y"), new Attribute.IntValue("keepdims", 0));
            default -> throw new IllegalArgumentException(shape);
        }
        return writer.toByteArray();
    }

    /** The model's inputs (x…) and outputs (y…) with their shapes, in order. */
    private static Map<String, long[]> shapes(String shape) {
        long[] v = {LENGTH};
        return switch (shape) {
            case "two inputs, two outputs" -> named(List.of("x1", "x2", "y1", "y2"), v, v, v, v);
            case "chain with intermediates" -> named(List.of("x1", "y"), v, v);
            case "every value an output" -> named(List.of("x1", "y1", "y2"), v, v, v);
            case "Add, same shapes" -> named(List.of("x1", "x2", "y"), v, v, v);
            case "Mul, bias broadcast" -> named(List.of("x1", "y"), new long[] {2, 3, 8}, new long[] {2, 3, 8});
            case "MatMul" -> named(List.of("x1", "y"), new long[] {16, 32}, new long[] {16, 16});
            case "Conv" -> named(List.of("x1", "y"), new long[] {1, 4, 16, 16}, new long[] {1, 8, 16, 16});
            case "ReduceMean over H, W" -> named(List.of("x1", "y"), new long[] {1, 8, 16, 16}, new long[] {1, 8, 1, 1});
            case "ReduceSum, axes as an input" -> named(List.of("x1", "y"), new long[] {4, 8, 16}, new long[] {4, 16});
            default -> throw new IllegalArgumentException(shape);
        };
    }

    private static Map<String, long[]> named(List<String> names, long[]... shapes) {
        Map<String, long[]> named = new LinkedHashMap<>();
        for (int i = 0; i < shapes.length; i++) {
            named.put(names.get(i), shapes[i]);
        }
        return named;
    }

    /** {@code n} values, positive and negative. */
    private static float[] values(int n) {
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = i % 2 == 0 ? (i % 7) / 4f : -(i % 5) / 4f;
        }
        return values;
    }

    /** The lowest heap allocation per Run over the batches, and the bound outputs' values after them. */
    private record Measured(double bytesPerRun, List<float[]> outputs) {}

    /** {@link Measured} for Runs with host tensors bound once; {@code device} null: ORT CPU. */
    private static Measured bytesPerRun(OrtEnvironment env, EpDevice device, byte[] model, Map<String, long[]> shapes) {
        List<OrtTensor> tensors = new ArrayList<>();
        try (SessionOptions options = env.createSessionOptions()) {
            if (device != null) {
                options.disableCpuEpFallback().appendExecutionProvider(List.of(device), Map.of());
            }
            try (Session session = env.createSession(model, options); IoBinding binding = session.createIoBinding()) {
                for (String input : session.inputNames()) {
                    long[] shape = shapes.get(input);
                    OrtTensor tensor = OrtTensor.fromHost(TensorData.ofFloats(shape, values(elements(shape))));
                    tensors.add(tensor);
                    binding.bindInput(input, tensor);
                }
                List<OrtTensor> outputs = new ArrayList<>();
                for (String output : session.outputNames()) {
                    long[] shape = shapes.get(output);
                    OrtTensor tensor = OrtTensor.fromHost(TensorData.ofFloats(shape, new float[elements(shape)]));
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
                List<float[]> results = new ArrayList<>();
                for (OrtTensor output : outputs) {
                    results.add(output.toHost().floats());
                }
                return new Measured(lowest, results);
            }
        } finally {
            tensors.forEach(OrtTensor::close);
        }
    }

    private static int elements(long[] shape) {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        return Math.toIntExact(n);
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
