package dev.javaep.harness.onnx;

import com.google.protobuf.ByteString;
import dev.javaep.harness.onnx.proto.AttributeProto;
import dev.javaep.harness.onnx.proto.AttributeProto.AttributeType;
import dev.javaep.harness.onnx.proto.GraphProto;
import dev.javaep.harness.onnx.proto.ModelProto;
import dev.javaep.harness.onnx.proto.NodeProto;
import dev.javaep.harness.onnx.proto.OperatorSetIdProto;
import dev.javaep.harness.onnx.proto.TensorProto;
import dev.javaep.harness.onnx.proto.TensorShapeProto;
import dev.javaep.harness.onnx.proto.TypeProto;
import dev.javaep.harness.onnx.proto.ValueInfoProto;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.TensorValue;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds a small ONNX model in code and serializes it as a ModelProto, for tests that need a model
 * file without Python. Defaults: IR version 8, default-domain opset 17, producer "javaep". The bytes come
 * from protobuf-java's classes for ONNX's schema ({@code src/main/proto/onnx-subset.proto}).
 *
 * <pre>{@code
 * byte[] model = new OnnxModelWriter("add")
 *         .input("a", ElementType.FLOAT, Dim.param("N"), Dim.of(3))
 *         .input("b", ElementType.FLOAT, Dim.param("N"), Dim.of(3))
 *         .output("y", ElementType.FLOAT, Dim.param("N"), Dim.of(3))
 *         .node("Add", List.of("a", "b"), List.of("y"))
 *         .toByteArray();
 * }</pre>
 */
public final class OnnxModelWriter {
    public static final long DEFAULT_IR_VERSION = 8;
    public static final long DEFAULT_OPSET = 17;
    public static final String PRODUCER = "javaep";

    private final String graphName;
    private long irVersion = DEFAULT_IR_VERSION;
    private final Map<String, Long> opsets = new LinkedHashMap<>(Map.of("", DEFAULT_OPSET));
    private final List<OnnxNode> nodes = new ArrayList<>();
    private final List<OnnxValueInfo> inputs = new ArrayList<>();
    private final List<OnnxValueInfo> outputs = new ArrayList<>();
    private final List<OnnxTensorData> initializers = new ArrayList<>();

    public OnnxModelWriter(String graphName) {
        this.graphName = graphName;
    }

    public OnnxModelWriter irVersion(long version) {
        this.irVersion = version;
        return this;
    }

    /** Sets the default ONNX domain's opset version. */
    public OnnxModelWriter opset(long version) {
        return opset("", version);
    }

    public OnnxModelWriter opset(String domain, long version) {
        opsets.put(domain, version);
        return this;
    }

    public OnnxModelWriter input(String name, ElementType elementType, Dim... shape) {
        inputs.add(OnnxValueInfo.tensor(name, elementType, shape));
        return this;
    }

    public OnnxModelWriter output(String name, ElementType elementType, Dim... shape) {
        outputs.add(OnnxValueInfo.tensor(name, elementType, shape));
        return this;
    }

    /** A constant float32 tensor (stored as raw_data). */
    public OnnxModelWriter initializer(String name, float[] values, long... dims) {
        return initializer(OnnxTensorData.ofFloats(name, values, dims));
    }

    public OnnxModelWriter initializer(OnnxTensorData tensor) {
        if (tensor.name().isEmpty()) {
            throw new IllegalArgumentException("an initializer needs a name: nodes refer to it by name");
        }
        initializers.add(tensor);
        return this;
    }

    /** A node of the default ONNX domain, named after its op type and position. */
    public OnnxModelWriter node(String opType, List<String> nodeInputs, List<String> nodeOutputs, Attribute... attributes) {
        return node(opType, nodeInputs, nodeOutputs, Map.of(), attributes);
    }

    /**
     * A node of the default ONNX domain that holds subgraphs as GRAPH attributes, e.g. If's
     * {@code then_branch} and {@code else_branch}. A subgraph may read values of the enclosing graph by
     * name; build one with another writer's {@link #graph()}.
     */
    public OnnxModelWriter node(String opType, List<String> nodeInputs, List<String> nodeOutputs,
                                Map<String, OnnxGraph> subgraphs, Attribute... attributes) {
        Map<String, Attribute> byName = new LinkedHashMap<>();
        for (Attribute a : attributes) {
            if (byName.put(a.name(), a) != null) {
                throw new IllegalArgumentException(opType + " node has attribute '" + a.name() + "' twice");
            }
        }
        return node(new OnnxNode(opType + "_" + nodes.size(), opType, "", nodeInputs, nodeOutputs, byName, subgraphs));
    }

    public OnnxModelWriter node(OnnxNode node) {
        nodes.add(node);
        return this;
    }

    public OnnxModel build() {
        return new OnnxModel(irVersion, PRODUCER, opsets, graph());
    }

    /** The graph built so far, without the model around it: the main graph, or a subgraph for {@link #node(String, List, List, Map, Attribute...)}. */
    public OnnxGraph graph() {
        return new OnnxGraph(graphName, nodes, inputs, outputs, initializers);
    }

    public byte[] toByteArray() {
        return serialize(build());
    }

    public void writeTo(Path file) throws IOException {
        Files.write(file, toByteArray());
    }

    /**
     * Writes the model to {@code file} with every initializer of at least {@code thresholdBytes} in
     * {@code dataFileName} beside it (what {@code onnx.save_model(..., save_as_external_data=True)} does):
     * those TensorProtos carry {@code data_location = EXTERNAL} and location/offset/length entries, and ORT
     * reads the bytes from the data file when it loads the model from a path.
     */
    public void writeTo(Path file, String dataFileName, long thresholdBytes) throws IOException {
        ExternalData external = new ExternalData(dataFileName, thresholdBytes);
        byte[] model = serialize(build(), external);
        Files.write(file.resolveSibling(dataFileName), external.bytes.toByteArray());
        Files.write(file, model);
    }

    /** Collects the initializers written outside the model, in file order. */
    private static final class ExternalData {
        private final String location;
        private final long thresholdBytes;
        private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();

        ExternalData(String location, long thresholdBytes) {
            this.location = location;
            this.thresholdBytes = thresholdBytes;
        }

        TensorProto message(OnnxTensorData tensor) {
            if (tensor.data().length < thresholdBytes) {
                return TensorProtoWriter.message(tensor);
            }
            long offset = bytes.size();
            bytes.writeBytes(tensor.data());
            return TensorProtoWriter.externalMessage(tensor, location, offset);
        }
    }

    /** Serializes any {@link OnnxModel} (for example one read by {@link OnnxModelReader} and modified). */
    public static byte[] serialize(OnnxModel model) {
        return serialize(model, null);
    }

    private static byte[] serialize(OnnxModel model, ExternalData external) {
        ModelProto.Builder out = ModelProto.newBuilder()
                .setIrVersion(model.irVersion())
                .setProducerName(model.producerName())
                .setGraph(graphMessage(model.graph(), external));
        // Sorted so that equal models give equal bytes (the record holds an unordered map).
        model.opsetImports().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> out.addOpsetImport(
                OperatorSetIdProto.newBuilder().setDomain(e.getKey()).setVersion(e.getValue())));
        return out.build().toByteArray();
    }

    /** @param external where large initializers go, or null to write every initializer inline */
    private static GraphProto graphMessage(OnnxGraph graph, ExternalData external) {
        GraphProto.Builder out = GraphProto.newBuilder().setName(graph.name());
        graph.nodes().forEach(node -> out.addNode(nodeMessage(node)));
        graph.initializers().forEach(t -> out.addInitializer(
                external == null ? TensorProtoWriter.message(t) : external.message(t)));
        graph.inputs().forEach(v -> out.addInput(valueInfoMessage(v)));
        graph.outputs().forEach(v -> out.addOutput(valueInfoMessage(v)));
        return out.build();
    }

    private static NodeProto nodeMessage(OnnxNode node) {
        NodeProto.Builder out = NodeProto.newBuilder()
                .addAllInput(node.inputs())
                .addAllOutput(node.outputs())
                .setOpType(node.opType());
        if (!node.name().isEmpty()) {
            out.setName(node.name());
        }
        if (!node.domain().isEmpty()) {
            out.setDomain(node.domain());
        }
        node.attributes().values().forEach(a -> out.addAttribute(attributeMessage(a, node)));
        node.subgraphs().forEach((name, graph) -> out.addAttribute(AttributeProto.newBuilder()
                .setName(name).setType(AttributeType.GRAPH).setG(graphMessage(graph, null))));
        return out.build();
    }

    private static AttributeProto attributeMessage(Attribute attribute, OnnxNode node) {
        AttributeProto.Builder out = AttributeProto.newBuilder().setName(attribute.name());
        switch (attribute) {
            case Attribute.FloatValue(var n, var v) -> out.setType(AttributeType.FLOAT).setF(v);
            case Attribute.IntValue(var n, var v) -> out.setType(AttributeType.INT).setI(v);
            case Attribute.StringValue(var n, var v) -> out.setType(AttributeType.STRING).setS(ByteString.copyFromUtf8(v));
            case Attribute.FloatList(var n, var values) -> out.setType(AttributeType.FLOATS).addAllFloats(values);
            case Attribute.IntList(var n, var values) -> out.setType(AttributeType.INTS).addAllInts(values);
            case Attribute.StringList(var n, var values) -> {
                out.setType(AttributeType.STRINGS);
                values.forEach(v -> out.addStrings(ByteString.copyFromUtf8(v)));
            }
            case Attribute.TensorAttribute(var n, var v) -> out.setType(AttributeType.TENSOR)
                    .setT(TensorProtoWriter.message(tensorData(v)));
            case Attribute.GraphAttribute a -> throw unwritable(a, node,
                    "it holds ORT's view of a graph; pass a subgraph as an OnnxGraph (OnnxNode.subgraphs)");
            case Attribute.Unreadable a -> throw unwritable(a, node, "its value is unknown (" + a.reason() + ")");
        }
        return out.build();
    }

    /** A TENSOR attribute's value as an unnamed tensor (ONNX's make_attribute leaves the name out too). */
    private static OnnxTensorData tensorData(TensorValue value) {
        ByteBuffer data = value.data().duplicate();
        byte[] bytes = new byte[data.remaining()];
        data.get(bytes);
        return new OnnxTensorData("", value.elementType(), value.shape(), bytes);
    }

    private static IllegalArgumentException unwritable(Attribute attribute, OnnxNode node, String why) {
        return new IllegalArgumentException("cannot write attribute '" + attribute.name() + "' of " + node.opType()
                + " node '" + node.name() + "': " + why);
    }

    private static ValueInfoProto valueInfoMessage(OnnxValueInfo value) {
        if (!value.isTensor()) {
            throw new IllegalArgumentException("cannot write graph value '" + value.name() + "': only tensors are supported");
        }
        TypeProto.Tensor.Builder tensorType = TypeProto.Tensor.newBuilder().setElemType(value.elementType().onnxValue());
        if (value.shape() != null) {
            TensorShapeProto.Builder shape = TensorShapeProto.newBuilder();
            for (Dim d : value.shape()) {
                TensorShapeProto.Dimension.Builder dim = shape.addDimBuilder();
                switch (d) {
                    case Dim.Value(long size) -> dim.setDimValue(size);
                    case Dim.Param(String name) -> dim.setDimParam(name);
                    case Dim.Unknown() -> { }
                }
            }
            tensorType.setShape(shape);
        }
        return ValueInfoProto.newBuilder()
                .setName(value.name())
                .setType(TypeProto.newBuilder().setTensorType(tensorType))
                .build();
    }
}
