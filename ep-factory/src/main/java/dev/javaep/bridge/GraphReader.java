package dev.javaep.bridge;

import dev.javaep.ort.OrtApi;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Graph;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Copies an {@code OrtGraph} (valid only during GetCapability/Compile) into {@link Graph}/{@link Node}
 * records. ORT owns every pointer reached here; nothing is released and nothing is kept but node ids.
 */
final class GraphReader {
    // OrtOpAttrType
    private static final int ATTR_INT = 1;
    private static final int ATTR_INTS = 2;
    private static final int ATTR_FLOAT = 3;
    private static final int ATTR_FLOATS = 4;
    private static final int ATTR_STRING = 5;
    // ONNXType
    private static final int ONNX_TYPE_TENSOR = 1;

    private final OrtApi api;

    GraphReader(OrtApi api) {
        this.api = api;
    }

    Graph read(MemorySegment graph) {
        List<Node> nodes = new ArrayList<>();
        for (MemorySegment node : api.graphNodes(graph)) {
            nodes.add(readNode(node));
        }
        return new Graph(api.graphName(graph), List.copyOf(nodes), valueInfos(api.graphInputs(graph)),
                valueInfos(api.graphOutputs(graph)));
    }

    Node readNode(MemorySegment node) {
        return new Node(node.address(), api.nodeName(node), api.nodeOperatorType(node), api.nodeDomain(node),
                api.nodeSinceVersion(node), valueInfos(api.nodeInputs(node)), valueInfos(api.nodeOutputs(node)),
                attributes(node));
    }

    private List<ValueInfo> valueInfos(List<MemorySegment> pointers) {
        List<ValueInfo> result = new ArrayList<>(pointers.size());
        for (MemorySegment pointer : pointers) {
            result.add(pointer.equals(MemorySegment.NULL) ? null : valueInfo(pointer));
        }
        return java.util.Collections.unmodifiableList(result);
    }

    private ValueInfo valueInfo(MemorySegment valueInfo) {
        String name = api.valueInfoName(valueInfo);
        MemorySegment typeInfo = api.valueInfoTypeInfo(valueInfo);
        if (api.onnxType(typeInfo) != ONNX_TYPE_TENSOR) {
            return new ValueInfo(name, ElementType.UNDEFINED, null, false);
        }
        MemorySegment tensorInfo = api.castToTensorInfo(typeInfo);
        if (tensorInfo.equals(MemorySegment.NULL)) {
            return new ValueInfo(name, ElementType.UNDEFINED, null, false);
        }
        ElementType type = ElementType.fromOnnx(api.tensorElementType(tensorInfo));
        long[] shape = api.tensorHasShape(tensorInfo) ? api.tensorDimensions(tensorInfo) : null;
        return new ValueInfo(name, type, shape, true);
    }

    private Map<String, Attribute> attributes(MemorySegment node) {
        Map<String, Attribute> result = new LinkedHashMap<>();
        try (Arena arena = Arena.ofConfined()) {
            for (MemorySegment attribute : api.nodeAttributes(node)) {
                String name = api.attributeName(attribute);
                int type = api.attributeType(attribute);
                result.put(name, switch (type) {
                    case ATTR_INT -> new Attribute.IntValue(name, api.readAttribute(attribute, type, arena).get(ValueLayout.JAVA_LONG, 0));
                    case ATTR_FLOAT -> new Attribute.FloatValue(name, api.readAttribute(attribute, type, arena).get(ValueLayout.JAVA_FLOAT, 0));
                    case ATTR_INTS -> new Attribute.IntList(name, boxLongs(api.readAttribute(attribute, type, arena).toArray(ValueLayout.JAVA_LONG)));
                    case ATTR_FLOATS -> new Attribute.FloatList(name, boxFloats(api.readAttribute(attribute, type, arena).toArray(ValueLayout.JAVA_FLOAT)));
                    case ATTR_STRING -> new Attribute.StringValue(name, string(api.readAttribute(attribute, type, arena)));
                    default -> new Attribute.Other(name, type);
                });
            }
        }
        return java.util.Collections.unmodifiableMap(result);
    }

    private static String string(MemorySegment bytes) {
        return bytes.byteSize() == 0 ? "" : bytes.getString(0, StandardCharsets.UTF_8);
    }

    private static List<Long> boxLongs(long[] values) {
        return java.util.Arrays.stream(values).boxed().toList();
    }

    private static List<Float> boxFloats(float[] values) {
        List<Float> result = new ArrayList<>(values.length);
        for (float v : values) {
            result.add(v);
        }
        return List.copyOf(result);
    }
}
