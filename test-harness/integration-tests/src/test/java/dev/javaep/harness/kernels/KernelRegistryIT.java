package dev.javaep.harness.kernels;

import static dev.javaep.harness.kernels.JavaKernelRegistryTestExecutionProvider.CLOSED;
import static dev.javaep.harness.kernels.JavaKernelRegistryTestExecutionProvider.CREATED;
import static dev.javaep.harness.kernels.JavaKernelRegistryTestExecutionProvider.NAME;
import static dev.javaep.harness.kernels.JavaKernelRegistryTestExecutionProvider.computes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.bridge.BridgeStatistics;
import dev.javaep.bridge.CapabilityReports;
import dev.javaep.harness.FloatRamp;
import dev.javaep.harness.JavaepRegistration;
import dev.javaep.harness.TestPaths;
import dev.javaep.harness.kernels.JavaKernelRegistryTestExecutionProvider.CreatedKernel;
import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.harness.onnx.OnnxTensorData;
import dev.javaep.harness.onnx.TensorProtoReader;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A Java EP that registers per-op kernels in ORT's kernel registry ({@code OrtEp::GetKernelRegistry}) runs
 * models through the real ORT 1.29: ORT looks its kernels up, creates one per node through javaep's
 * kernel-create callback, calls {@code OrtKernelImpl::Compute} per node per Run and releases the kernels with
 * the session. Results are compared with ORT's own CPU EP.
 */
class KernelRegistryIT {
    private static final String REGISTRATION = "javaep-kernel-registry";

    @RegisterExtension
    static final JavaepRegistration JAVAEP = new JavaepRegistration(REGISTRATION, OrtHost.LogLevel.WARNING, NAME);



    @BeforeEach
    void resetCounters() {
        JavaKernelRegistryTestExecutionProvider.resetCounters();
    }

    /**
     * x[2,3,4] + y[4] → a; LeakyRelu(a, alpha 0.2) + LeakyRelu(a) (alpha left to its default 0.01) + Relu(a):
     * every op kind the EP has a kernel for, an attribute the kernel reads and one it defaults, broadcasting.
     */
    private static byte[] addReluModel() {
        return new OnnxModelWriter("per_op_kernels")
                .input("x", ElementType.FLOAT, Dim.of(2), Dim.of(3), Dim.of(4))
                .input("y", ElementType.FLOAT, Dim.of(4))
                .output("out", ElementType.FLOAT, Dim.of(2), Dim.of(3), Dim.of(4))
                .node("Add", List.of("x", "y"), List.of("a"))
                .node("LeakyRelu", List.of("a"), List.of("l1"), new Attribute.FloatValue("alpha", 0.2f))
                .node("LeakyRelu", List.of("a"), List.of("l2"))
                .node("Relu", List.of("a"), List.of("r"))
                .node("Add", List.of("l1", "l2"), List.of("s"))
                .node("Add", List.of("s", "r"), List.of("out"))
                .toByteArray();
    }

    @Test
    void perOpKernelsRunTheModelWithoutCpuFallbackAndMatchOrtsCpuEp() {
        byte[] model = addReluModel();
        Map<String, TensorData> inputs = Map.of(
                "x", TensorData.ofFloats(new long[] {2, 3, 4}, FloatRamp.of(24, -6f, 0.5f)),
                "y", TensorData.ofFloats(new long[] {4}, 0.25f, -1.5f, 2f, -0.125f));
        float[] expected = runOnOrtCpu(model, inputs).get("out").floats();

        try (Session session = JAVAEP.session(model, NAME, false)) {
            CapabilityReports.Report report = latestReport("per_op_kernels");
            assertEquals(6, report.nodes(), report::summary);
            assertEquals(6, report.kernelNodes(), () -> "every node is claimed through a per-op kernel: " + report.summary());
            assertEquals(0, report.compiledNodes(), report::summary);
            assertEquals(Map.of(), report.declines(), report::summary);
            assertEquals(List.of(), report.failures(), report::summary);

            assertArrayEquals(expected, session.run(inputs).get("out").floats(), 1e-6f);
            assertArrayEquals(expected, session.run(inputs).get("out").floats(), 1e-6f);
            assertEquals(6, computes("Add"), "3 Add nodes × 2 Runs");
            assertEquals(4, computes("LeakyRelu"), "2 LeakyRelu nodes × 2 Runs");
            assertEquals(2, computes("Relu"), "1 Relu node × 2 Runs");

            List<CreatedKernel> created = CREATED.stream().sorted(Comparator.comparing(CreatedKernel::nodeName)).toList();
            assertEquals(List.of("Add_0", "Add_4", "Add_5", "LeakyRelu_1", "LeakyRelu_2", "Relu_3"),
                    created.stream().map(CreatedKernel::nodeName).toList(), "one kernel per node, named by ORT's KernelInfo");
            Map<String, CreatedKernel> byNode = created.stream()
                    .collect(Collectors.toMap(CreatedKernel::nodeName, Function.identity()));
            CreatedKernel add = byNode.get("Add_0");
            assertEquals("Add", add.opType());
            assertEquals("", add.domain());
            assertEquals(14, add.sinceVersion(), "opset 17 resolves Add to its version-14 schema");
            assertEquals(2, add.inputCount());
            assertEquals(1, add.outputCount());
            assertEquals(List.of(ElementType.FLOAT, ElementType.FLOAT), add.inputTypes());
            assertEquals(ElementType.FLOAT, add.outputType());
            assertEquals(16, byNode.get("LeakyRelu_1").sinceVersion(),
                    "LeakyRelu-16 is matched by the kernel registered for 6 and every later version");
            assertEquals(0.2f, byNode.get("LeakyRelu_1").alpha(), "alpha the node sets");
            assertEquals(0.01f, byNode.get("LeakyRelu_2").alpha(), "alpha the node leaves out: the kernel's default");
            assertEquals("absent", add.absentString(), "a STRING attribute the node does not have reads as the default");
            assertEquals(List.of(-1L), add.absentInts(), "an INTS attribute the node does not have reads as the default");
        }
        assertEquals(6, CLOSED.get(), "ORT released every kernel it created (OrtKernelImpl::Release) with the session");
        assertEquals(0, BridgeStatistics.liveObjects().getOrDefault("OrtKernelImpl", 0), BridgeStatistics.liveObjects()::toString);
        assertEquals(0, BridgeStatistics.liveObjects().getOrDefault("OrtKernelCreateFunc state", 0),
                "the EP's kernel registry is released with the EP: " + BridgeStatistics.liveObjects());
    }

    @Test
    void anOpWithoutARegisteredKernelIsDeclinedAndRunsOnOrtsCpuEp() {
        // support() answers kernel() for Sub, but the EP registers no Sub kernel: ORT's lookup finds none.
        byte[] model = new OnnxModelWriter("no_sub_kernel")
                .input("x", ElementType.FLOAT, Dim.of(5))
                .input("y", ElementType.FLOAT, Dim.of(5))
                .output("out", ElementType.FLOAT, Dim.of(5))
                .node("Add", List.of("x", "y"), List.of("a"))
                .node("Sub", List.of("a", "y"), List.of("d"))
                .node("Relu", List.of("d"), List.of("out"))
                .toByteArray();
        Map<String, TensorData> inputs = Map.of(
                "x", TensorData.ofFloats(new long[] {5}, -2f, -1f, 0f, 1f, 2f),
                "y", TensorData.ofFloats(new long[] {5}, 3f, -3f, 0.5f, -0.5f, 7f));
        float[] expected = runOnOrtCpu(model, inputs).get("out").floats();
        assertArrayEquals(new float[] {0f, 0f, 0f, 1f, 2f}, expected, 1e-6f, "Relu((x + y) - y) = Relu(x)");

        try (Session session = JAVAEP.session(model, NAME, true)) {
            CapabilityReports.Report report = latestReport("no_sub_kernel");
            assertEquals(2, report.kernelNodes(), () -> "Add and Relu are claimed: " + report.summary());
            assertEquals(Map.of(DeclineCode.NO_KERNEL, 1), report.declines(), report::summary);
            assertEquals(List.of(), report.failures(), report::summary);

            assertArrayEquals(expected, session.run(inputs).get("out").floats(), 1e-6f);
            assertEquals(1, computes("Add"));
            assertEquals(1, computes("Relu"));
            assertEquals(0, computes("Sub"));
        }
    }

    @Test
    void anElementTypeOutsideTheKernelsTypeConstraintIsDeclinedAndRunsOnOrtsCpuEp() {
        // Add is registered for T = float only: ORT's lookup rejects a double Add by the declared constraint.
        byte[] model = new OnnxModelWriter("double_add")
                .input("x", ElementType.DOUBLE, Dim.of(3))
                .input("y", ElementType.DOUBLE, Dim.of(3))
                .output("out", ElementType.DOUBLE, Dim.of(3))
                .node("Add", List.of("x", "y"), List.of("out"))
                .toByteArray();
        Map<String, TensorData> inputs = Map.of("x", doubles(1.5, -2, 1e300), "y", doubles(0.25, 2, 1e300));

        try (Session session = JAVAEP.session(model, NAME, true)) {
            CapabilityReports.Report report = latestReport("double_add");
            assertEquals(0, report.kernelNodes(), report::summary);
            assertEquals(Map.of(DeclineCode.NO_KERNEL, 1), report.declines(), report::summary);

            TensorData out = session.run(inputs).get("out");
            assertEquals(ElementType.DOUBLE, out.elementType());
            double[] sum = new double[3];
            ByteBuffer.wrap(out.data()).order(ByteOrder.LITTLE_ENDIAN).asDoubleBuffer().get(sum);
            assertArrayEquals(new double[] {1.75, 0, 2e300}, sum, "computed in double precision by ORT's CPU EP");
            assertEquals(0, computes("Add"));
        }
    }

    @Test
    void nodesInsideAScanBodyRunOnPerOpKernelsWhileOrtRunsTheScan() throws Exception {
        // ONNX's test_scan9_sum: Scan (left to ORT's CPU EP) whose body adds each row to a running sum.
        Path test = TestPaths.nodeTest("test_scan9_sum");
        Map<String, TensorData> inputs = new LinkedHashMap<>();
        List<OnnxTensorData> expected = new ArrayList<>();
        try (Session session = JAVAEP.session(test.resolve("model.onnx"), NAME, true)) {
            for (int i = 0; i < session.inputNames().size(); i++) {
                OnnxTensorData tensor = TensorProtoReader.read(test.resolve("test_data_set_0/input_" + i + ".pb"));
                inputs.put(session.inputNames().get(i), new TensorData(tensor.elementType(), tensor.dims(), tensor.data()));
            }
            for (int i = 0; i < session.outputNames().size(); i++) {
                expected.add(TensorProtoReader.read(test.resolve("test_data_set_0/output_" + i + ".pb")));
            }
            Map<String, TensorData> outputs = session.run(inputs);
            for (int i = 0; i < expected.size(); i++) {
                TensorData actual = outputs.get(session.outputNames().get(i));
                assertArrayEquals(expected.get(i).dims(), actual.shape());
                assertArrayEquals(expected.get(i).data(), actual.data(), "output " + i + " is exact: float adds in order");
            }
        }
        assertTrue(CapabilityReports.recent().stream().anyMatch(r -> r.ep().equals(NAME) && r.kernelNodes() == 1
                && r.graph().equals("scan_body")), () -> "the body's Add is claimed: " + CapabilityReports.recent());
        long iterations = inputs.get("x").shape()[0];
        assertTrue(iterations > 1, "the scanned input has several rows: " + inputs);
        assertEquals(iterations, computes("Add"), "the body's Add ran on the per-op kernel once per Scan iteration");
    }

    @Test
    void aKernelFactoryThatThrowsFailsSessionCreationNamingTheNode() {
        byte[] model = new OnnxModelWriter("refused_kernel")
                .input("x", ElementType.FLOAT, Dim.of(4))
                .output("out", ElementType.FLOAT, Dim.of(4))
                .node("LeakyRelu", List.of("x"), List.of("out"), new Attribute.FloatValue("alpha", -1f))
                .toByteArray();
        try (SessionOptions options = JAVAEP.options(NAME, false)) {
            OrtException failure = assertThrows(OrtException.class, () -> JAVAEP.env().createSession(model, options).close());
            assertTrue(failure.getMessage().contains("LeakyRelu kernel for node 'LeakyRelu_0'"), failure::getMessage);
            assertTrue(failure.getMessage().contains("refuses a negative alpha"), failure::getMessage);
            assertEquals(OrtErrorCode.INVALID_ARGUMENT, failure.code(), "an IllegalArgumentException maps to INVALID_ARGUMENT");
        }
        assertEquals(0, CLOSED.get(), "no kernel was created, so none is released");
        assertEquals(0, BridgeStatistics.liveObjects().getOrDefault("OrtKernelImpl", 0), BridgeStatistics.liveObjects()::toString);
        assertEquals(0, BridgeStatistics.liveObjects().getOrDefault("OrtKernelCreateFunc state", 0),
                BridgeStatistics.liveObjects()::toString);
    }

    @Test
    void aKernelThatThrowsFailsTheRunNamingTheNodeAndTheSessionLivesOn() {
        byte[] model = new OnnxModelWriter("throwing_kernel")
                .input("x", ElementType.FLOAT, Dim.of(3))
                .output("out", ElementType.FLOAT, Dim.of(3))
                .node("Relu", List.of("x"), List.of("out"))
                .toByteArray();
        try (Session session = JAVAEP.session(model, NAME, false)) {
            OrtException failure = assertThrows(OrtException.class,
                    () -> session.run(Map.of("x", TensorData.ofFloats(new long[] {3}, 1f, Float.NaN, -1f))));
            assertTrue(failure.getMessage().contains("Relu kernel for node 'Relu_0' failed"), failure::getMessage);
            assertTrue(failure.getMessage().contains("refuses NaN"), failure::getMessage);
            assertEquals(OrtErrorCode.EP_FAIL, failure.code());
            assertArrayEquals(new float[] {1f, 0f, 0f},
                    session.run(Map.of("x", TensorData.ofFloats(new long[] {3}, 1f, -2f, -1f))).get("out").floats(),
                    "the next Run of the same session works");
        }
        assertEquals(1, CLOSED.get());
    }

    private static Map<String, TensorData> runOnOrtCpu(byte[] model, Map<String, TensorData> inputs) {
        try (SessionOptions options = JAVAEP.env().createSessionOptions(); Session session = JAVAEP.env().createSession(model, options)) {
            return session.run(inputs);
        }
    }

    /** The newest GetCapability report of the test EP for the graph named {@code graph}. */
    private static CapabilityReports.Report latestReport(String graph) {
        List<CapabilityReports.Report> reports = CapabilityReports.recent().stream()
                .filter(r -> r.ep().equals(NAME) && r.graph().equals(graph)).toList();
        assertTrue(!reports.isEmpty(), () -> "no GetCapability report of " + NAME + " for graph " + graph + " among "
                + CapabilityReports.recent());
        return reports.getLast();
    }

    private static TensorData doubles(double... values) {
        ByteBuffer buffer = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        buffer.asDoubleBuffer().put(values);
        return new TensorData(ElementType.DOUBLE, new long[] {values.length}, buffer.array());
    }
}
