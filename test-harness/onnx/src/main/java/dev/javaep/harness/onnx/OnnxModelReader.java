package dev.javaep.harness.onnx;

import dev.javaep.harness.onnx.OnnxSchema.AttributeProto;
import dev.javaep.harness.onnx.OnnxSchema.Dimension;
import dev.javaep.harness.onnx.OnnxSchema.GraphProto;
import dev.javaep.harness.onnx.OnnxSchema.ModelProto;
import dev.javaep.harness.onnx.OnnxSchema.NodeProto;
import dev.javaep.harness.onnx.OnnxSchema.OperatorSetIdProto;
import dev.javaep.harness.onnx.OnnxSchema.OrtOpAttrType;
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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the parts of an ONNX ModelProto that javaep's tests look at: opset imports and the main
 * graph's nodes, inputs, outputs and initializers, and the same of subgraphs in GRAPH attributes. Everything else (doc strings, metadata, value_info,
 * functions, sparse initializers, training info) is skipped, so this is for inspecting models, not
 * for re-saving them.
 */
public final class OnnxModelReader {
    private OnnxModelReader() {}

    public static OnnxModel read(Path file) throws IOException {
        try {
            return parse(Files.readAllBytes(file));
        } catch (ProtobufFormatException | IllegalArgumentException | UnsupportedOperationException e) {
            throw new IOException("cannot read ONNX model " + file + ": " + e.getMessage(), e);
        }
    }

    public static OnnxModel parse(byte[] bytes) {
        ProtoReader model = new ProtoReader(bytes);
        long irVersion = 0;
        String producer = "";
        Map<String, Long> opsets = new HashMap<>();
        OnnxGraph graph = null;
        while (model.next()) {
            switch (model.fieldNumber()) {
                case ModelProto.IR_VERSION -> irVersion = model.readVarint();
                case ModelProto.PRODUCER_NAME -> producer = model.readString();
                case ModelProto.GRAPH -> graph = graph(model.readMessage());
                case ModelProto.OPSET_IMPORT -> opsetImport(model.readMessage(), opsets);
                default -> model.skip();
            }
        }
        if (graph == null) {
            throw new ProtobufFormatException("not an ONNX model: no graph (field " + ModelProto.GRAPH + ")");
        }
        return new OnnxModel(irVersion, producer, opsets, graph);
    }

    private static void opsetImport(ProtoReader message, Map<String, Long> opsets) {
        String domain = "";
        long version = 0;
        while (message.next()) {
            switch (message.fieldNumber()) {
                case OperatorSetIdProto.DOMAIN -> domain = message.readString();
                case OperatorSetIdProto.VERSION -> version = message.readVarint();
                default -> message.skip();
            }
        }
        opsets.put(domain, version);
    }

    private static OnnxGraph graph(ProtoReader message) {
        String name = "";
        List<OnnxNode> nodes = new ArrayList<>();
        List<OnnxValueInfo> inputs = new ArrayList<>();
        List<OnnxValueInfo> outputs = new ArrayList<>();
        List<OnnxTensorData> initializers = new ArrayList<>();
        while (message.next()) {
            switch (message.fieldNumber()) {
                case GraphProto.NODE -> nodes.add(node(message.readMessage()));
                case GraphProto.NAME -> name = message.readString();
                case GraphProto.INITIALIZER -> initializers.add(TensorProtoReader.parse(message.readMessage()));
                case GraphProto.INPUT -> inputs.add(valueInfo(message.readMessage()));
                case GraphProto.OUTPUT -> outputs.add(valueInfo(message.readMessage()));
                default -> message.skip();
            }
        }
        return new OnnxGraph(name, nodes, inputs, outputs, initializers);
    }

    private static OnnxNode node(ProtoReader message) {
        String name = "";
        String opType = "";
        String domain = "";
        List<String> inputs = new ArrayList<>();
        List<String> outputs = new ArrayList<>();
        Map<String, Attribute> attributes = new LinkedHashMap<>();
        Map<String, OnnxGraph> subgraphs = new LinkedHashMap<>();
        while (message.next()) {
            switch (message.fieldNumber()) {
                case NodeProto.INPUT -> inputs.add(message.readString());
                case NodeProto.OUTPUT -> outputs.add(message.readString());
                case NodeProto.NAME -> name = message.readString();
                case NodeProto.OP_TYPE -> opType = message.readString();
                case NodeProto.ATTRIBUTE -> attribute(message.readMessage(), attributes, subgraphs);
                case NodeProto.DOMAIN -> domain = message.readString();
                default -> message.skip();
            }
        }
        return new OnnxNode(name, opType, domain, inputs, outputs, attributes, subgraphs);
    }

    /** Reads one attribute into {@code attributes}, or into {@code subgraphs} when it is a GRAPH. */
    private static void attribute(ProtoReader message, Map<String, Attribute> attributes, Map<String, OnnxGraph> subgraphs) {
        String name = "";
        int type = AttributeProto.TYPE_UNDEFINED;
        Float f = null;
        Long i = null;
        String s = null;
        List<Float> floats = new ArrayList<>();
        List<Long> ints = new ArrayList<>();
        OnnxGraph g = null;
        while (message.next()) {
            switch (message.fieldNumber()) {
                case AttributeProto.NAME -> name = message.readString();
                case AttributeProto.F -> f = message.readFloat();
                case AttributeProto.I -> i = message.readVarint();
                case AttributeProto.S -> s = message.readString();
                case AttributeProto.FLOATS -> message.readRepeatedFloat(floats::add);
                case AttributeProto.INTS -> message.readRepeatedVarint(ints::add);
                case AttributeProto.G -> g = graph(message.readMessage());
                case AttributeProto.TYPE -> type = message.readInt32();
                default -> message.skip();
            }
        }
        if (type == AttributeProto.TYPE_UNDEFINED) {
            // Models from before IR version 2 leave the type out; the field that is set tells it.
            type = f != null ? AttributeProto.TYPE_FLOAT : i != null ? AttributeProto.TYPE_INT
                    : s != null ? AttributeProto.TYPE_STRING : !floats.isEmpty() ? AttributeProto.TYPE_FLOATS
                    : !ints.isEmpty() ? AttributeProto.TYPE_INTS : AttributeProto.TYPE_UNDEFINED;
        }
        if (type == AttributeProto.TYPE_GRAPH && g != null) {
            subgraphs.put(name, g);
            return;
        }
        Attribute attribute = switch (type) {
            case AttributeProto.TYPE_FLOAT -> new Attribute.FloatValue(name, f == null ? 0f : f);
            case AttributeProto.TYPE_INT -> new Attribute.IntValue(name, i == null ? 0L : i);
            case AttributeProto.TYPE_STRING -> new Attribute.StringValue(name, s == null ? "" : s);
            case AttributeProto.TYPE_FLOATS -> new Attribute.FloatList(name, List.copyOf(floats));
            case AttributeProto.TYPE_INTS -> new Attribute.IntList(name, List.copyOf(ints));
            case AttributeProto.TYPE_STRINGS -> new Attribute.Unreadable(name, OrtOpAttrType.STRINGS, "this reader skips strings lists");
            case AttributeProto.TYPE_TENSOR -> new Attribute.Unreadable(name, OrtOpAttrType.TENSOR, "this reader skips tensors");
            case AttributeProto.TYPE_GRAPH, AttributeProto.TYPE_GRAPHS -> new Attribute.Unreadable(name, OrtOpAttrType.GRAPH, "this reader skips lists of subgraphs");
            default -> new Attribute.Unreadable(name, OrtOpAttrType.UNDEFINED, "attribute type " + type);
        };
        attributes.put(name, attribute);
    }

    private static OnnxValueInfo valueInfo(ProtoReader message) {
        String name = "";
        ElementType elementType = ElementType.UNDEFINED;
        List<Dim> shape = null;
        boolean isTensor = false;
        while (message.next()) {
            switch (message.fieldNumber()) {
                case ValueInfoProto.NAME -> name = message.readString();
                case ValueInfoProto.TYPE -> {
                    ProtoReader type = message.readMessage();
                    while (type.next()) {
                        if (type.fieldNumber() == TypeProto.TENSOR_TYPE) {
                            isTensor = true;
                            ProtoReader tensor = type.readMessage();
                            while (tensor.next()) {
                                switch (tensor.fieldNumber()) {
                                    case TypeProtoTensor.ELEM_TYPE -> elementType = ElementType.fromOnnx(tensor.readInt32());
                                    case TypeProtoTensor.SHAPE -> shape = shape(tensor.readMessage());
                                    default -> tensor.skip();
                                }
                            }
                        } else {
                            type.skip(); // sequence, map, optional, sparse tensor: not a dense tensor
                        }
                    }
                }
                default -> message.skip();
            }
        }
        return new OnnxValueInfo(name, elementType, shape, isTensor);
    }

    private static List<Dim> shape(ProtoReader message) {
        List<Dim> dims = new ArrayList<>();
        while (message.next()) {
            if (message.fieldNumber() != TensorShapeProto.DIM) {
                message.skip();
                continue;
            }
            ProtoReader dim = message.readMessage();
            Dim d = Dim.unknown();
            while (dim.next()) {
                switch (dim.fieldNumber()) {
                    case Dimension.DIM_VALUE -> {
                        long size = dim.readVarint();
                        d = size >= 0 ? Dim.of(size) : Dim.unknown(); // some exporters write -1 for "dynamic"
                    }
                    case Dimension.DIM_PARAM -> d = Dim.param(dim.readString());
                    default -> dim.skip();
                }
            }
            dims.add(d);
        }
        return dims;
    }
}
