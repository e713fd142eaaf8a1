package dev.javaep.harness.graph;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.bridge.CapabilityReports;
import dev.javaep.harness.JavaepRegistration;
import dev.javaep.harness.TestPaths;
import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.harness.onnx.OnnxTensorData;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Graph;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * javaep's graph reader against models whose contents the test knows: every attribute kind a real
 * model uses, constants (also from an external data file), omitted optional inputs, symbolic dims,
 * opsets and subgraphs, read through the real ORT 1.29 during GetCapability.
 */
class GraphReadingIT {
    private static final String REGISTRATION = "javaep-graph-reading";
    @RegisterExtension
    static final JavaepRegistration JAVAEP = new JavaepRegistration(REGISTRATION, GraphRecordingExecutionProviderFactory.NAME);



    /** The nodes the recording EP saw while a session was created from {@code model}, by op type. */
    private static List<Node> nodesSeenFor(Path model) {
        GraphRecordingExecutionProviderFactory.takeSeen();
        CapabilityReports.clear();
        try (Session session = JAVAEP.session(model, GraphRecordingExecutionProviderFactory.NAME, true)) {
            assertNotNull(session);
        }
        assertEquals(0, CapabilityReports.containedFailures(), () -> "contained failures: " + CapabilityReports.recent());
        return GraphRecordingExecutionProviderFactory.takeSeen();
    }

    private static Node only(List<Node> nodes, String opType) {
        List<Node> matching = nodes.stream().filter(n -> n.opType().equals(opType)).toList();
        assertTrue(!matching.isEmpty(), () -> "no " + opType + " node seen; saw " + nodes);
        return matching.getFirst();
    }

    @Test
    void stringAttributesWithoutATerminatingNul() {
        Node conv = only(nodesSeenFor(TestPaths.nodeTest("test_conv_with_autopad_same").resolve("model.onnx")), "Conv");
        assertEquals(new Attribute.StringValue("auto_pad", "SAME_LOWER"), conv.attributes().get("auto_pad"));
        assertEquals(List.of(2L, 2L), conv.intsAttribute("strides", List.of()));
        assertEquals("NOTSET", conv.stringAttribute("pads_mode_absent", "NOTSET"), "an absent attribute gives the default");
    }

    @Test
    void stringListAttributes() {
        Node encoder = only(nodesSeenFor(TestPaths.nodeTest("test_ai_onnx_ml_label_encoder_string_int").resolve("model.onnx")),
                "LabelEncoder");
        assertEquals("ai.onnx.ml", encoder.domain());
        Attribute keys = encoder.attributes().get("keys_strings");
        assertInstanceOf(Attribute.StringList.class, keys, () -> "keys_strings: " + keys);
        assertTrue(((Attribute.StringList) keys).values().size() >= 2, keys::toString);
    }

    @Test
    void tensorAttributes() {
        Node node = only(nodesSeenFor(TestPaths.nodeTest("test_constantofshape_float_ones").resolve("model.onnx")),
                "ConstantOfShape");
        Attribute value = node.attributes().get("value");
        assertInstanceOf(Attribute.TensorAttribute.class, value, () -> "value: " + value);
        var tensor = ((Attribute.TensorAttribute) value).value();
        assertEquals(ElementType.FLOAT, tensor.elementType());
        assertArrayEquals(new float[] {1f}, tensor.floats());
    }

    @Test
    void subgraphsOfControlFlowNodes() {
        List<Node> nodes = nodesSeenFor(TestPaths.nodeTest("test_if").resolve("model.onnx"));
        Node ifNode = only(nodes, "If");
        Map<String, Graph> branches = ifNode.subgraphs();
        assertEquals(List.of("else_branch", "then_branch"), branches.keySet().stream().sorted().toList());
        for (Graph branch : branches.values()) {
            assertTrue(!branch.nodes().isEmpty() || !branch.outputs().isEmpty(), () -> "an empty branch: " + branch);
        }
    }

    @Test
    void constantsOmittedInputsSymbolicDimsAndExternalData(@TempDir Path dir) throws Exception {
        // Add's weights live in an external data file (small tensors stay inline, as onnx.save_model's
        // default threshold keeps them: ONNX shape inference cannot read Reshape's shape from a file);
        // Clip's min is omitted ("").
        float[] weights = new float[64];
        for (int i = 0; i < weights.length; i++) {
            weights[i] = i * 0.25f;
        }
        ByteBuffer shape = ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(-1).putLong(8);
        Path model = dir.resolve("external.onnx");
        new OnnxModelWriter("external_data").opset(17)
                .input("x", ElementType.FLOAT, Dim.param("N"), Dim.of(64))
                .output("y", ElementType.FLOAT, Dim.unknown(), Dim.of(8))
                .initializer(OnnxTensorData.ofFloats("w", weights, 64))
                .initializer(new OnnxTensorData("shape", ElementType.INT64, new long[] {2}, shape.array()))
                .initializer(OnnxTensorData.ofFloats("max", new float[] {6f}))
                .node("Add", List.of("x", "w"), List.of("a"))
                .node("Clip", List.of("a", "", "max"), List.of("c"))
                .node("Reshape", List.of("c", "shape"), List.of("y"))
                .writeTo(model, "external.bin", 64);
        assertEquals(64 * 4, Files.size(dir.resolve("external.bin")), "the weights went to the data file");

        List<Node> nodes = nodesSeenFor(model);
        ValueInfo x = only(nodes, "Add").input(0);
        assertArrayEquals(new long[] {-1, 64}, x.shape(), "the symbolic batch reads as -1");
        ValueInfo w = only(nodes, "Add").input(1);
        assertTrue(w.constant(), w::toString);
        assertArrayEquals(weights, w.value().floats(), "weights read from the external data file at GetCapability");
        Node clip = only(nodes, "Clip");
        assertNull(clip.input(1), "the omitted min is null");
        assertEquals(6f, clip.input(2).value().floats()[0]);
        ValueInfo shapeInput = only(nodes, "Reshape").input(1);
        assertTrue(shapeInput.constant());
        assertArrayEquals(new long[] {-1, 8}, shapeInput.value().longs(), "Reshape's shape, readable at GetCapability");

        // And the model still runs (on ORT's CPU EP: the JAVAEP.device(GraphRecordingExecutionProviderFactory.NAME) claims nothing).
        try (SessionOptions options = JAVAEP.env().createSessionOptions();
             Session session = JAVAEP.env().createSession(model, options)) {
            float[] input = new float[128];
            Map<String, TensorData> out = session.run(Map.of("x", TensorData.ofFloats(new long[] {2, 64}, input)));
            assertArrayEquals(new long[] {16, 8}, out.get("y").shape());
        }
    }
}
