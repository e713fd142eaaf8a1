package dev.javaep.harness.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import java.io.IOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;

/**
 * Runs javaep's CPU kernels directly (no ORT) on every single-node ONNX node test whose op they
 * claim, and compares with the expected outputs, using the tolerances of ONNX's backend tests.
 * This checks the kernels and this package's readers against data javaep did not produce.
 */
class CpuKernelsNodeTest {

    /** The op schema versions of the ops javaep implements, to turn an opset import into a since-version. */
    private static final Map<String, int[]> SCHEMA_VERSIONS = Map.ofEntries(
            Map.entry("Add", new int[] {1, 6, 7, 13, 14}),
            Map.entry("Sub", new int[] {1, 6, 7, 13, 14}),
            Map.entry("Mul", new int[] {1, 6, 7, 13, 14}),
            Map.entry("Div", new int[] {1, 6, 7, 13, 14}),
            Map.entry("Relu", new int[] {1, 6, 13, 14}),
            Map.entry("Sigmoid", new int[] {1, 6, 13}),
            Map.entry("Tanh", new int[] {1, 6, 13}),
            Map.entry("Identity", new int[] {1, 13, 14, 16, 19, 21, 23, 24, 25}),
            Map.entry("MatMul", new int[] {1, 9, 13}),
            Map.entry("Gemm", new int[] {1, 6, 7, 9, 11, 13}),
            Map.entry("Softmax", new int[] {1, 11, 13}));

    private static final double RTOL = 1e-3;
    private static final double ATOL = 1e-7;

    @TestFactory
    Stream<DynamicTest> kernelsReproduceTheExpectedOutputs() throws IOException {
        List<Path> claimed = new ArrayList<>();
        try (Stream<Path> dirs = Files.list(NodeTests.dir())) {
            for (Path dir : dirs.sorted().toList()) {
                Path modelFile = dir.resolve("model.onnx");
                if (!Files.isRegularFile(modelFile)) {
                    continue;
                }
                OnnxModel model = OnnxModelReader.read(modelFile);
                if (model.graph().nodes().size() == 1 && SCHEMA_VERSIONS.containsKey(model.graph().nodes().getFirst().opType())
                        && kernelFor(model).isPresent()) {
                    claimed.add(dir);
                }
            }
        }
        // Guards against passing vacuously (e.g. if the reader or forNode stopped recognizing anything).
        assertTrue(claimed.size() >= 50, "only " + claimed.size() + " node tests were claimed: " + claimed);
        return claimed.stream().map(dir -> DynamicTest.dynamicTest(dir.getFileName().toString(), () -> check(dir)));
    }

    private static Optional<CpuKernel> kernelFor(OnnxModel model) {
        return CpuKernels.forNode(toNode(model));
    }

    private static Node toNode(OnnxModel model) {
        OnnxNode n = model.graph().nodes().getFirst();
        int since = 0;
        for (int v : SCHEMA_VERSIONS.get(n.opType())) {
            if (v <= model.onnxOpset()) {
                since = v;
            }
        }
        List<ValueInfo> inputs = new ArrayList<>();
        for (String name : n.inputs()) {
            inputs.add(name.isEmpty() ? null : valueInfo(model.graph(), name));
        }
        List<ValueInfo> outputs = n.outputs().stream().map(name -> valueInfo(model.graph(), name)).toList();
        return new Node(0, n.name(), n.opType(), n.domain(), since, inputs, outputs, n.attributes());
    }

    private static ValueInfo valueInfo(OnnxGraph graph, String name) {
        OnnxValueInfo v = Stream.concat(graph.inputs().stream(), graph.outputs().stream())
                .filter(x -> x.name().equals(name)).findFirst()
                .orElseThrow(() -> new AssertionError("no graph input or output named " + name));
        long[] shape = v.shape() == null ? null
                : v.shape().stream().mapToLong(d -> d instanceof Dim.Value(long size) ? size : -1).toArray();
        return new ValueInfo(name, v.elementType(), shape, v.isTensor());
    }

    private static void check(Path dir) throws IOException {
        OnnxModel model = OnnxModelReader.read(dir.resolve("model.onnx"));
        CpuKernel kernel = kernelFor(model).orElseThrow();
        Path data = dir.resolve("test_data_set_0");
        OnnxNode node = model.graph().nodes().getFirst();
        try (Arena arena = Arena.ofConfined()) {
            List<HostTensor> inputs = new ArrayList<>();
            int file = 0;
            for (String name : node.inputs()) {
                inputs.add(name.isEmpty() ? null : toHost(arena, TensorProtoReader.read(data.resolve("input_" + file++ + ".pb"))));
            }
            long[][] shapes = new long[inputs.size()][];
            for (int i = 0; i < shapes.length; i++) {
                shapes[i] = inputs.get(i) == null ? null : inputs.get(i).shape();
            }
            long[][] outputShapes = kernel.outputShapes(shapes);
            List<OnnxTensorData> expected = new ArrayList<>();
            List<HostTensor> outputs = new ArrayList<>();
            for (int i = 0; i < outputShapes.length; i++) {
                OnnxTensorData e = TensorProtoReader.read(data.resolve("output_" + i + ".pb"));
                assertArrayEquals(e.dims(), outputShapes[i], "shape of output " + i);
                expected.add(e);
                outputs.add(HostTensor.allocate(arena, e.elementType(), outputShapes[i]));
            }
            kernel.compute(inputs, outputs);
            for (int i = 0; i < outputs.size(); i++) {
                assertClose(expected.get(i), outputs.get(i));
            }
        }
    }

    private static HostTensor toHost(Arena arena, OnnxTensorData t) {
        HostTensor h = HostTensor.allocate(arena, t.elementType(), t.dims());
        MemorySegment.copy(MemorySegment.ofArray(t.data()), 0, h.data(), 0, t.data().length);
        return h;
    }

    private static void assertClose(OnnxTensorData expected, HostTensor actual) {
        MemorySegment want = MemorySegment.ofArray(expected.data());
        MemorySegment got = actual.data();
        long n = actual.elementCount();
        switch (expected.elementType()) {
            case FLOAT -> {
                for (long i = 0; i < n; i++) {
                    close(want.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i), got.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i), i);
                }
            }
            case DOUBLE -> {
                for (long i = 0; i < n; i++) {
                    close(want.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i), got.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i), i);
                }
            }
            default -> assertArrayEquals(expected.data(), got.toArray(ValueLayout.JAVA_BYTE), "exact for " + expected.elementType());
        }
    }

    private static void close(double want, double got, long i) {
        if (Double.isNaN(want) ? !Double.isNaN(got) : Math.abs(want - got) > ATOL + RTOL * Math.abs(want)) {
            fail("element " + i + ": expected " + want + " but got " + got);
        }
    }

}
