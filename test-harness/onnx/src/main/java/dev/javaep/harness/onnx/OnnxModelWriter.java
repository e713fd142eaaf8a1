package dev.javaep.harness.onnx;

import dev.javaep.harness.onnx.OnnxSchema.AttributeProto;
import dev.javaep.harness.onnx.OnnxSchema.Dimension;
import dev.javaep.harness.onnx.OnnxSchema.GraphProto;
import dev.javaep.harness.onnx.OnnxSchema.ModelProto;
import dev.javaep.harness.onnx.OnnxSchema.NodeProto;
import dev.javaep.harness.onnx.OnnxSchema.OperatorSetIdProto;
import dev.javaep.harness.onnx.OnnxSchema.TensorShapeProto;
import dev.javaep.harness.onnx.OnnxSchema.TypeProto;
import dev.javaep.harness.onnx.OnnxSchema.TypeProtoTensor;
import dev.javaep.harness.onnx.OnnxSchema.ValueInfoProto;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Builds a small ONNX model in code and serializes it as a ModelProto, for tests that need a model
 * file without Python. Defaults: IR version 8, default-domain opset 17, producer "javaep".
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
        private final java.io.ByteArrayOutputStream bytes = new java.io.ByteArrayOutputStream();

        ExternalData(String location, long thresholdBytes) {
            this.location = location;
            this.thresholdBytes = thresholdBytes;
        }

        ProtoWriter message(OnnxTensorData tensor) {
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
        ProtoWriter out = new ProtoWriter()
                .varint(ModelProto.IR_VERSION, model.irVersion())
                .string(ModelProto.PRODUCER_NAME, model.producerName())
                .message(ModelProto.GRAPH, graphMessage(model.graph(), external));
        // Sorted so that equal models give equal bytes (the record holds an unordered map).
        model.opsetImports().entrySet().stream().sorted(Map.Entry.comparingByKey()).forEach(e -> out.message(
                ModelProto.OPSET_IMPORT, new ProtoWriter()
                        .string(OperatorSetIdProto.DOMAIN, e.getKey())
                        .varint(OperatorSetIdProto.VERSION, e.getValue())));
        return out.toByteArray();
    }

    /** @param external where large initializers go, or null to write every initializer inline */
    private static ProtoWriter graphMessage(OnnxGraph graph, ExternalData external) {
        ProtoWriter out = new ProtoWriter();
        for (OnnxNode node : graph.nodes()) {
            out.message(GraphProto.NODE, nodeMessage(node));
        }
        out.string(GraphProto.NAME, graph.name());
        for (OnnxTensorData t : graph.initializers()) {
            out.message(GraphProto.INITIALIZER, external == null ? TensorProtoWriter.message(t) : external.message(t));
        }
        for (OnnxValueInfo v : graph.inputs()) {
            out.message(GraphProto.INPUT, valueInfoMessage(v));
        }
        for (OnnxValueInfo v : graph.outputs()) {
            out.message(GraphProto.OUTPUT, valueInfoMessage(v));
        }
        return out;
    }

    private static ProtoWriter nodeMessage(OnnxNode node) {
        ProtoWriter out = new ProtoWriter();
        node.inputs().forEach(name -> out.string(NodeProto.INPUT, name));
        node.outputs().forEach(name -> out.string(NodeProto.OUTPUT, name));
        if (!node.name().isEmpty()) {
            out.string(NodeProto.NAME, node.name());
        }
        out.string(NodeProto.OP_TYPE, node.opType());
        node.attributes().values().forEach(a -> out.message(NodeProto.ATTRIBUTE, attributeMessage(a, node)));
        node.subgraphs().forEach((name, graph) -> out.message(NodeProto.ATTRIBUTE, new ProtoWriter()
                .string(AttributeProto.NAME, name)
                .message(AttributeProto.G, graphMessage(graph, null))
                .varint(AttributeProto.TYPE, AttributeProto.TYPE_GRAPH)));
        if (!node.domain().isEmpty()) {
            out.string(NodeProto.DOMAIN, node.domain());
        }
        return out;
    }

    private static ProtoWriter attributeMessage(Attribute attribute, OnnxNode node) {
        ProtoWriter out = new ProtoWriter().string(AttributeProto.NAME, attribute.name());
        switch (attribute) {
            case Attribute.FloatValue(var n, var v) -> out.floatValue(AttributeProto.F, v)
                    .varint(AttributeProto.TYPE, AttributeProto.TYPE_FLOAT);
            case Attribute.IntValue(var n, var v) -> out.varint(AttributeProto.I, v)
                    .varint(AttributeProto.TYPE, AttributeProto.TYPE_INT);
            case Attribute.StringValue(var n, var v) -> out.string(AttributeProto.S, v)
                    .varint(AttributeProto.TYPE, AttributeProto.TYPE_STRING);
            case Attribute.FloatList(var n, var values) -> {
                values.forEach(v -> out.floatValue(AttributeProto.FLOATS, v));
                out.varint(AttributeProto.TYPE, AttributeProto.TYPE_FLOATS);
            }
            case Attribute.IntList(var n, var values) -> {
                values.forEach(v -> out.varint(AttributeProto.INTS, v));
                out.varint(AttributeProto.TYPE, AttributeProto.TYPE_INTS);
            }
            case Attribute.StringList(var n, var values) -> {
                values.forEach(v -> out.string(AttributeProto.STRINGS, v));
                out.varint(AttributeProto.TYPE, AttributeProto.TYPE_STRINGS);
            }
            case Attribute.TensorAttribute a -> throw unwritable(a, node);
            case Attribute.GraphAttribute a -> throw unwritable(a, node);
            case Attribute.Unreadable a -> throw unwritable(a, node);
        }
        return out;
    }

    private static IllegalArgumentException unwritable(Attribute attribute, OnnxNode node) {
        return new IllegalArgumentException("cannot write attribute '" + attribute.name() + "' of " + node.opType()
                + " node '" + node.name() + "': only int, float, string, ints, floats and strings attributes are supported"
                + (attribute instanceof Attribute.GraphAttribute ? "; pass a subgraph as an OnnxGraph (OnnxNode.subgraphs)" : ""));
    }

    private static ProtoWriter valueInfoMessage(OnnxValueInfo value) {
        if (!value.isTensor()) {
            throw new IllegalArgumentException("cannot write graph value '" + value.name() + "': only tensors are supported");
        }
        ProtoWriter tensorType = new ProtoWriter().varint(TypeProtoTensor.ELEM_TYPE, value.elementType().onnxValue());
        if (value.shape() != null) {
            ProtoWriter shape = new ProtoWriter();
            for (Dim d : value.shape()) {
                ProtoWriter dim = new ProtoWriter();
                switch (d) {
                    case Dim.Value(long size) -> dim.varint(Dimension.DIM_VALUE, size);
                    case Dim.Param(String name) -> dim.string(Dimension.DIM_PARAM, name);
                    case Dim.Unknown() -> { }
                }
                shape.message(TensorShapeProto.DIM, dim);
            }
            tensorType.message(TypeProtoTensor.SHAPE, shape);
        }
        return new ProtoWriter()
                .string(ValueInfoProto.NAME, value.name())
                .message(ValueInfoProto.TYPE, new ProtoWriter().message(TypeProto.TENSOR_TYPE, tensorType));
    }
}
