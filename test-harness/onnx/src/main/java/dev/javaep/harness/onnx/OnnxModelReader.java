package dev.javaep.harness.onnx;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.javaep.harness.onnx.proto.AttributeProto;
import dev.javaep.harness.onnx.proto.AttributeProto.AttributeType;
import dev.javaep.harness.onnx.proto.GraphProto;
import dev.javaep.harness.onnx.proto.ModelProto;
import dev.javaep.harness.onnx.proto.NodeProto;
import dev.javaep.harness.onnx.proto.OperatorSetIdProto;
import dev.javaep.harness.onnx.proto.TensorShapeProto;
import dev.javaep.harness.onnx.proto.TypeProto;
import dev.javaep.harness.onnx.proto.ValueInfoProto;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.TensorValue;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the parts of an ONNX ModelProto that javaep's tests look at: opset imports and the main
 * graph's nodes, inputs, outputs and initializers, and the same of subgraphs in GRAPH attributes.
 * Everything else (doc strings, metadata, value_info, functions, sparse initializers, training info)
 * is outside {@code onnx-subset.proto} and skipped, so this is for inspecting models, not for re-saving them.
 */
public final class OnnxModelReader {
    private OnnxModelReader() {}

    // ORT's OrtOpAttrType values, for Attribute.Unreadable (its numbering differs from ONNX's AttributeType)
    private static final int ORT_ATTR_UNDEFINED = 0;
    private static final int ORT_ATTR_GRAPH = 7;
    private static final int ORT_ATTR_TENSOR = 8;

    public static OnnxModel read(Path file) throws IOException {
        try {
            byte[] bytes = Files.readAllBytes(file);
            Path directory = file.toAbsolutePath().getParent();
            return ScopedValue.where(TensorProtoReader.MODEL_DIRECTORY, directory).call(() -> parse(bytes));
        } catch (java.io.UncheckedIOException e) {
            throw e.getCause();
        } catch (ProtobufFormatException | IllegalArgumentException | UnsupportedOperationException e) {
            throw new IOException("cannot read ONNX model " + file + ": " + e.getMessage(), e);
        }
    }

    public static OnnxModel parse(byte[] bytes) {
        ModelProto model;
        try {
            model = ModelProto.parseFrom(bytes);
        } catch (InvalidProtocolBufferException e) {
            throw new ProtobufFormatException("not an ONNX model: " + e.getMessage(), e);
        }
        if (!model.hasGraph()) {
            throw new ProtobufFormatException("not an ONNX model: no graph (field "
                    + ModelProto.GRAPH_FIELD_NUMBER + ")");
        }
        Map<String, Long> opsets = new HashMap<>();
        for (OperatorSetIdProto opset : model.getOpsetImportList()) {
            opsets.put(opset.getDomain(), opset.getVersion());
        }
        return new OnnxModel(model.getIrVersion(), model.getProducerName(), opsets, graph(model.getGraph()));
    }

    private static OnnxGraph graph(GraphProto graph) {
        return new OnnxGraph(graph.getName(),
                graph.getNodeList().stream().map(OnnxModelReader::node).toList(),
                graph.getInputList().stream().map(OnnxModelReader::valueInfo).toList(),
                graph.getOutputList().stream().map(OnnxModelReader::valueInfo).toList(),
                graph.getInitializerList().stream().map(TensorProtoReader::fromMessage).toList());
    }

    private static OnnxNode node(NodeProto node) {
        Map<String, Attribute> attributes = new LinkedHashMap<>();
        Map<String, OnnxGraph> subgraphs = new LinkedHashMap<>();
        for (AttributeProto a : node.getAttributeList()) {
            if (type(a) == AttributeType.GRAPH && a.hasG()) {
                subgraphs.put(a.getName(), graph(a.getG()));
            } else {
                attributes.put(a.getName(), attribute(a));
            }
        }
        return new OnnxNode(node.getName(), node.getOpType(), node.getDomain(), node.getInputList(), node.getOutputList(),
                attributes, subgraphs);
    }

    /** The attribute's type; models from before IR version 2 leave it out, and the field that is set tells it. */
    private static AttributeType type(AttributeProto a) {
        if (a.getType() != AttributeType.UNDEFINED) {
            return a.getType();
        }
        return a.hasF() ? AttributeType.FLOAT : a.hasI() ? AttributeType.INT : a.hasS() ? AttributeType.STRING
                : a.hasT() ? AttributeType.TENSOR : a.hasG() ? AttributeType.GRAPH
                : a.getFloatsCount() > 0 ? AttributeType.FLOATS : a.getIntsCount() > 0 ? AttributeType.INTS
                : a.getStringsCount() > 0 ? AttributeType.STRINGS : AttributeType.UNDEFINED;
    }

    private static Attribute attribute(AttributeProto a) {
        String name = a.getName();
        AttributeType type = type(a);
        return switch (type) {
            case FLOAT -> new Attribute.FloatValue(name, a.getF());
            case INT -> new Attribute.IntValue(name, a.getI());
            case STRING -> new Attribute.StringValue(name, a.getS().toStringUtf8());
            case FLOATS -> new Attribute.FloatList(name, List.copyOf(a.getFloatsList()));
            case INTS -> new Attribute.IntList(name, List.copyOf(a.getIntsList()));
            case STRINGS -> new Attribute.StringList(name, a.getStringsList().stream().map(ByteString::toStringUtf8).toList());
            case TENSOR -> tensorAttribute(a);
            case GRAPH -> new Attribute.Unreadable(name, ORT_ATTR_GRAPH, "a GRAPH attribute without a graph");
            case GRAPHS -> new Attribute.Unreadable(name, ORT_ATTR_GRAPH, "this reader skips lists of subgraphs");
            // TENSORS, SPARSE_TENSOR(S), TYPE_PROTO(S): ORT's C API cannot read them either (GraphReader's Unreadable)
            default -> new Attribute.Unreadable(name, ORT_ATTR_UNDEFINED, "attribute type " + type);
        };
    }

    /** A TENSOR attribute as ORT's graph would show it, or Unreadable when its tensor is one javaep cannot read. */
    private static Attribute tensorAttribute(AttributeProto a) {
        try {
            OnnxTensorData t = TensorProtoReader.fromMessage(a.getT());
            return new Attribute.TensorAttribute(a.getName(), new TensorValue(t.elementType(), t.dims(), ByteBuffer.wrap(t.data())));
        } catch (ProtobufFormatException | IllegalArgumentException | UnsupportedOperationException e) {
            return new Attribute.Unreadable(a.getName(), ORT_ATTR_TENSOR, e.getMessage());
        }
    }

    private static OnnxValueInfo valueInfo(ValueInfoProto value) {
        // sequence, map, optional, sparse tensor: not in onnx-subset.proto's TypeProto, so no tensor_type
        if (!value.getType().hasTensorType()) {
            return new OnnxValueInfo(value.getName(), ElementType.UNDEFINED, null, false);
        }
        TypeProto.Tensor tensor = value.getType().getTensorType();
        List<Dim> shape = tensor.hasShape() ? tensor.getShape().getDimList().stream().map(OnnxModelReader::dim).toList() : null;
        return new OnnxValueInfo(value.getName(), ElementType.fromOnnx(tensor.getElemType()), shape, true);
    }

    private static Dim dim(TensorShapeProto.Dimension dim) {
        return switch (dim.getValueCase()) {
            case DIM_VALUE -> dim.getDimValue() >= 0 ? Dim.of(dim.getDimValue()) : Dim.unknown(); // some exporters write -1 for "dynamic"
            case DIM_PARAM -> Dim.param(dim.getDimParam());
            case VALUE_NOT_SET -> Dim.unknown();
        };
    }
}
