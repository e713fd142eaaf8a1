package dev.javaep.harness.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.onnx.proto.AttributeProto;
import dev.javaep.harness.onnx.proto.ModelProto;
import dev.javaep.harness.onnx.proto.TensorProto;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.TensorValue;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OnnxModelWriterTest {

    @Test
    void theMlpRoundTripsThroughTheReader(@TempDir Path dir) throws IOException {
        TwoLayerMlp mlp = new TwoLayerMlp(1);
        OnnxModel model = mlp.writer().build();
        Path file = dir.resolve("mlp.onnx");
        mlp.writer().writeTo(file);
        OnnxModel read = OnnxModelReader.read(file);
        assertEquals(model, read);

        assertEquals(8, read.irVersion());
        assertEquals("javaep", read.producerName());
        assertEquals(17, read.onnxOpset());
        OnnxGraph g = read.graph();
        assertEquals(List.of("MatMul", "Add", "Relu", "MatMul", "Add", "Softmax"),
                g.nodes().stream().map(OnnxNode::opType).toList());
        assertEquals(List.of("a1", "w2"), g.nodes().get(3).inputs());
        assertEquals(Map.of("axis", new Attribute.IntValue("axis", -1)), g.nodes().get(5).attributes());
        assertEquals(List.of(Dim.param("batch"), Dim.of(4)), g.inputs().getFirst().shape());
        assertEquals(ElementType.FLOAT, g.outputs().getFirst().elementType());
        assertArrayEquals(mlp.w2, g.initializers().get(2).toFloatArray());
        assertArrayEquals(new long[] {8, 3}, g.initializers().get(2).dims());
    }

    @Test
    void fieldsAreWhereOnnxExpectsThem() {
        byte[] bytes = new OnnxModelWriter("g").opset(13).toByteArray();
        // ir_version (field 1, varint) = 8, then producer_name (field 2, bytes) = "javaep"
        assertArrayEquals(new byte[] {0x08, 0x08, 0x12, 0x06}, java.util.Arrays.copyOf(bytes, 4));
        assertEquals("javaep", new String(bytes, 4, 6, StandardCharsets.US_ASCII));
        assertEquals(13, OnnxModelReader.parse(bytes).onnxOpset());
    }

    @Test
    void everyAttributeKindAndDimKindRoundTrips() {
        OnnxModelWriter w = new OnnxModelWriter("attrs").opset(13).opset("com.example", 2)
                .input("x", ElementType.INT64, Dim.of(0), Dim.param("n"), Dim.unknown())
                .output("y", ElementType.DOUBLE)
                .node("Custom", List.of("x", ""), List.of("y"),
                        new Attribute.IntValue("i", -7),
                        new Attribute.FloatValue("f", 0.25f),
                        new Attribute.StringValue("s", "naïve"),
                        new Attribute.IntList("ints", List.of(1L, -2L, Long.MAX_VALUE)),
                        new Attribute.FloatList("floats", List.of(1.5f, Float.NEGATIVE_INFINITY)),
                        new Attribute.IntList("empty", List.of()),
                        new Attribute.StringList("strings", List.of("a", "", "ü")),
                        new Attribute.TensorAttribute("tensor", new TensorValue(ElementType.INT64, new long[] {2},
                                ByteBuffer.allocate(16).order(ByteOrder.LITTLE_ENDIAN).putLong(3).putLong(-1).flip())))
                .node(new OnnxNode("n2", "Gelu", "com.example", List.of("y"), List.of("z"), Map.of()));
        OnnxModel model = w.build();
        OnnxModel read = OnnxModelReader.parse(w.toByteArray());
        // An empty list is written as type INTS with no values, so it comes back as an empty IntList.
        assertEquals(model, read);
        assertEquals(2L, read.opsetImports().get("com.example"));
        assertEquals("com.example", read.graph().nodes().get(1).domain());
        assertEquals(List.of(), read.graph().outputs().getFirst().shape(), "a scalar: a shape with no dims");
    }

    @Test
    void subgraphsAreWrittenAsGraphAttributesAndReadBack() {
        OnnxGraph thenBranch = new OnnxModelWriter("then")
                .output("t", ElementType.FLOAT, Dim.param("n"))
                .node("Relu", List.of("x"), List.of("t"))
                .graph();
        OnnxGraph elseBranch = new OnnxModelWriter("else")
                .output("e", ElementType.FLOAT, Dim.param("n"))
                .initializer("two", new float[] {2}, 1)
                .node("Mul", List.of("x", "two"), List.of("e"))
                .graph();
        OnnxModelWriter w = new OnnxModelWriter("if").opset(13)
                .input("c", ElementType.BOOL)
                .input("x", ElementType.FLOAT, Dim.param("n"))
                .output("y", ElementType.FLOAT, Dim.param("n"))
                .node("If", List.of("c"), List.of("y"), Map.of("then_branch", thenBranch, "else_branch", elseBranch),
                        new Attribute.IntValue("unused", 3));
        OnnxModel model = w.build();
        OnnxModel read = OnnxModelReader.parse(w.toByteArray());
        assertEquals(model, read);

        OnnxNode ifNode = read.graph().nodes().getFirst();
        assertEquals(Map.of("unused", new Attribute.IntValue("unused", 3)), ifNode.attributes(),
                "GRAPH attributes are subgraphs, not attributes");
        assertEquals(java.util.Set.of("then_branch", "else_branch"), ifNode.subgraphs().keySet());
        OnnxGraph elseRead = ifNode.subgraphs().get("else_branch");
        assertEquals("else", elseRead.name());
        assertEquals(List.of("x", "two"), elseRead.nodes().getFirst().inputs(), "a subgraph reads the outer x by name");
        assertArrayEquals(new float[] {2}, elseRead.initializers().getFirst().toFloatArray());
    }

    @Test
    void aGraphAttributeIsAFieldGOfTypeGraph() throws Exception {
        OnnxGraph body = new OnnxModelWriter("b").output("o", ElementType.FLOAT).graph();
        byte[] bytes = new OnnxModelWriter("g")
                .node("If", List.of("c"), List.of("o"), Map.of("then_branch", body)).toByteArray();
        AttributeProto attribute = ModelProto.parseFrom(bytes).getGraph().getNode(0).getAttribute(0);
        assertEquals("then_branch", attribute.getName());
        assertEquals(AttributeProto.AttributeType.GRAPH, attribute.getType());
        assertEquals(6, AttributeProto.G_FIELD_NUMBER, "ONNX's AttributeProto.g");
        assertTrue(attribute.hasG(), "the subgraph is in AttributeProto.g");
        assertEquals("b", attribute.getG().getName());
    }

    @Test
    void largeInitializersGoToTheExternalDataFile(@TempDir Path dir) throws IOException {
        Path file = dir.resolve("mlp.onnx");
        TwoLayerMlp mlp = new TwoLayerMlp(1);
        mlp.writer().writeTo(file, "mlp.bin", 64);
        List<TensorProto> initializers = ModelProto.parseFrom(Files.readAllBytes(file)).getGraph().getInitializerList();
        long offset = 0;
        for (OnnxTensorData expected : mlp.writer().graph().initializers()) {
            TensorProto written = initializers.stream().filter(t -> t.getName().equals(expected.name())).findFirst().orElseThrow();
            if (expected.data().length < 64) {
                assertArrayEquals(expected.data(), written.getRawData().toByteArray(), expected.name() + " stays inline");
                continue;
            }
            assertEquals(TensorProto.DataLocation.EXTERNAL, written.getDataLocation(), expected.name());
            assertFalse(written.hasRawData());
            Map<String, String> entries = written.getExternalDataList().stream()
                    .collect(java.util.stream.Collectors.toMap(e -> e.getKey(), e -> e.getValue()));
            assertEquals(Map.of("location", "mlp.bin", "offset", Long.toString(offset),
                    "length", Integer.toString(expected.data().length)), entries);
            offset += expected.data().length;
        }
        assertTrue(offset > 0, "some initializer is at least 64 bytes");
        assertEquals(offset, Files.size(dir.resolve("mlp.bin")));
        // read back from the file, the external data comes from the file beside it; from bytes alone it cannot
        OnnxModel back = OnnxModelReader.read(file);
        for (OnnxTensorData expected : mlp.writer().graph().initializers()) {
            OnnxTensorData read = back.graph().initializers().stream().filter(t -> t.name().equals(expected.name()))
                    .findFirst().orElseThrow();
            assertArrayEquals(expected.data(), read.data(), expected.name() + " read back");
        }
        var e = assertThrows(UnsupportedOperationException.class, () -> OnnxModelReader.parse(Files.readAllBytes(file)));
        assertTrue(e.getMessage().contains("external"), "the reader says why it stops: " + e.getMessage());
        Files.delete(dir.resolve("mlp.bin"));
        var missing = assertThrows(IOException.class, () -> OnnxModelReader.read(file));
        assertTrue(missing.getMessage().contains("mlp.bin"), "the reader names the missing file: " + missing.getMessage());
    }

    @Test
    void whatCannotBeWrittenIsRefusedClearly() {
        var other = assertThrows(IllegalArgumentException.class, () -> new OnnxModelWriter("g")
                .node("If", List.of("c"), List.of("y"), new Attribute.Unreadable("then_branch", 7, "test")).toByteArray());
        assertTrue(other.getMessage().contains("then_branch"), other.getMessage());
        var ortGraph = assertThrows(IllegalArgumentException.class, () -> new OnnxModelWriter("g")
                .node("If", List.of("c"), List.of("y"), new Attribute.GraphAttribute("then_branch",
                        new dev.javaep.spi.Graph("t", List.of(), List.of(), List.of()))).toByteArray());
        assertTrue(ortGraph.getMessage().contains("OnnxGraph"), "the message says how to attach a subgraph: " + ortGraph.getMessage());
        OnnxGraph empty = new OnnxModelWriter("b").graph();
        assertThrows(IllegalArgumentException.class, () -> new OnnxModelWriter("g")
                .node("If", List.of("c"), List.of("y"), Map.of("then_branch", empty), new Attribute.IntValue("then_branch", 1)));
        assertThrows(IllegalArgumentException.class, () -> new OnnxModelWriter("g")
                .node("Relu", List.of("x"), List.of("y"), new Attribute.IntValue("a", 1), new Attribute.IntValue("a", 2)));
        assertThrows(IllegalArgumentException.class, () -> new OnnxModelWriter("g")
                .initializer(OnnxTensorData.ofFloats("", new float[] {1}, 1)));
        OnnxModel sequence = new OnnxModel(8, "t", Map.of("", 17L), new OnnxGraph("g", List.of(),
                List.of(new OnnxValueInfo("s", ElementType.UNDEFINED, null, false)), List.of(), List.of()));
        assertThrows(IllegalArgumentException.class, () -> OnnxModelWriter.serialize(sequence));
    }

    @Test
    void readsModelsTheOnnxLibraryWrote() throws IOException {
        OnnxModel gemm = OnnxModelReader.read(NodeTests.dir().resolve("test_gemm_all_attributes/model.onnx"));
        OnnxNode node = gemm.graph().nodes().getFirst();
        assertEquals("Gemm", node.opType());
        assertEquals(List.of("a", "b", "c"), node.inputs());
        assertEquals(new Attribute.FloatValue("alpha", 0.25f), node.attributes().get("alpha"));
        assertEquals(new Attribute.FloatValue("beta", 0.35f), node.attributes().get("beta"));
        assertEquals(new Attribute.IntValue("transA", 1), node.attributes().get("transA"));
        assertEquals(new Attribute.IntValue("transB", 1), node.attributes().get("transB"));
        assertTrue(gemm.onnxOpset() >= 7);
        OnnxValueInfo a = gemm.graph().inputs().getFirst();
        assertEquals(ElementType.FLOAT, a.elementType());
        assertEquals(List.of(Dim.of(4), Dim.of(3)), a.shape());

        // What we read, written back and read again, is unchanged.
        assertEquals(gemm, OnnxModelReader.parse(OnnxModelWriter.serialize(gemm)));

        // TENSOR and STRINGS attributes read as ORT's graph shows them (GraphReadingIT checks ORT's side).
        OnnxNode constantOfShape = OnnxModelReader.read(NodeTests.dir().resolve("test_constantofshape_float_ones/model.onnx"))
                .graph().nodes().getFirst();
        Attribute value = constantOfShape.attributes().get("value");
        assertTrue(value instanceof Attribute.TensorAttribute, "value: " + value);
        assertArrayEquals(new float[] {1f}, ((Attribute.TensorAttribute) value).value().floats());
        OnnxNode labelEncoder = OnnxModelReader.read(NodeTests.dir().resolve("test_ai_onnx_ml_label_encoder_string_int/model.onnx"))
                .graph().nodes().getFirst();
        Attribute keys = labelEncoder.attributes().get("keys_strings");
        assertTrue(keys instanceof Attribute.StringList list && list.values().size() >= 2, "keys_strings: " + keys);
    }

    /** onnx.checker is the authority on model validity; use it when this machine has it. */
    @Test
    void onnxCheckerAcceptsTheMlp(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("mlp.onnx");
        new TwoLayerMlp(2).writer().writeTo(file);
        String python = pythonWithOnnx();
        Assumptions.assumeTrue(python != null, "no Python with the onnx package (tried python3 and /usr/bin/python3),"
                + " so onnx.checker cannot run; the model is still checked by parsing it back");
        String check = "import onnx, sys; m = onnx.load(sys.argv[1]); onnx.checker.check_model(m, full_check=True)";
        Process p = new ProcessBuilder(python, "-c", check, file.toString()).redirectErrorStream(true).start();
        String output = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS), "onnx.checker timed out");
        assertEquals(0, p.exitValue(), "onnx.checker rejected the model: " + output);
    }

    /** A Python interpreter that can import onnx (a pyenv python3 may shadow the system one that has it). */
    private static String pythonWithOnnx() throws InterruptedException {
        for (String python : List.of("python3", "/usr/bin/python3")) {
            try {
                Process probe = new ProcessBuilder(python, "-c", "import onnx").redirectErrorStream(true).start();
                probe.getInputStream().readAllBytes();
                if (probe.waitFor(60, TimeUnit.SECONDS) && probe.exitValue() == 0) {
                    return python;
                }
            } catch (IOException notInstalled) {
                // try the next one
            }
        }
        return null;
    }
}
