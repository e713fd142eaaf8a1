package dev.javaep.bridge;

import dev.javaep.ort.OrtApi;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Graph;
import dev.javaep.spi.Node;
import dev.javaep.spi.TensorValue;
import dev.javaep.spi.ValueInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Copies an {@code OrtGraph} (valid only during GetCapability/Compile) into {@link Graph}/{@link Node}
 * records. ORT owns every pointer reached here; nothing is kept but node ids.
 *
 * <p>Reading is contained: a node whose inputs or outputs cannot be read is listed in
 * {@link Graph#unreadNodes()} (and stays with other EPs); an attribute that cannot be read becomes
 * {@link Attribute.Unreadable}; a value whose type cannot be read is a non-tensor. One bad node never
 * costs the others.
 */
final class GraphReader {
    // OrtOpAttrType
    static final int ATTR_INT = 1;
    static final int ATTR_INTS = 2;
    static final int ATTR_FLOAT = 3;
    static final int ATTR_FLOATS = 4;
    static final int ATTR_STRING = 5;
    static final int ATTR_STRINGS = 6;
    static final int ATTR_GRAPH = 7;
    static final int ATTR_TENSOR = 8;
    // ONNXType
    private static final int ONNX_TYPE_TENSOR = 1;
    /** If inside Loop inside If...: deeper nesting than any real model, shallower than a stack overflow. */
    private static final int MAX_SUBGRAPH_DEPTH = 16;

    private final OrtApi api;
    /** Value infos by address: ORT hands the same OrtValueInfo for a value wherever it appears. */
    private final Map<Long, ValueInfo> valueCache = new HashMap<>();

    GraphReader(OrtApi api) {
        this.api = api;
    }

    Graph read(MemorySegment graph) {
        return read(graph, 0);
    }

    private Graph read(MemorySegment graph, int depth) {
        List<Node> nodes = new ArrayList<>();
        List<String> unread = new ArrayList<>();
        for (MemorySegment node : api.graphNodes(graph)) {
            try {
                nodes.add(readNode(node, depth));
            } catch (RuntimeException | StackOverflowError e) {
                unread.add(describe(node) + ": " + e);
            }
        }
        Map<String, Long> opsets;
        try {
            opsets = api.graphOperatorSets(graph);
        } catch (RuntimeException e) {
            opsets = Map.of(); // a subgraph view may not know its model's imports; nodes still carry their version
        }
        return new Graph(safeName(graph), List.copyOf(nodes), valueInfos(api.graphInputs(graph)),
                valueInfos(api.graphOutputs(graph)), valueInfos(api.graphInitializers(graph)), Map.copyOf(opsets),
                List.copyOf(unread));
    }

    Node readNode(MemorySegment node) {
        return readNode(node, 0);
    }

    private Node readNode(MemorySegment node, int depth) {
        String epName;
        try {
            epName = api.nodeEpName(node);
        } catch (RuntimeException e) {
            epName = "";
        }
        return new Node(node.address(), api.nodeName(node), api.nodeOperatorType(node), api.nodeDomain(node),
                api.nodeSinceVersion(node), valueInfos(api.nodeInputs(node)), valueInfos(api.nodeOutputs(node)),
                attributes(node, depth), valueInfos(api.nodeImplicitInputs(node)), epName);
    }

    private String describe(MemorySegment node) {
        try {
            return api.nodeOperatorType(node) + " '" + api.nodeName(node) + "'";
        } catch (RuntimeException e) {
            return "a node";
        }
    }

    private String safeName(MemorySegment graph) {
        try {
            String name = api.graphName(graph);
            return name == null ? "" : name;
        } catch (RuntimeException e) {
            return "";
        }
    }

    private List<ValueInfo> valueInfos(List<MemorySegment> pointers) {
        List<ValueInfo> result = new ArrayList<>(pointers.size());
        for (MemorySegment pointer : pointers) {
            result.add(pointer.equals(MemorySegment.NULL) ? null : valueInfo(pointer));
        }
        return Collections.unmodifiableList(result);
    }

    private ValueInfo valueInfo(MemorySegment valueInfo) {
        ValueInfo cached = valueCache.get(valueInfo.address());
        if (cached != null) {
            return cached;
        }
        String name = api.valueInfoName(valueInfo);
        if (name == null || name.isEmpty()) {
            return null; // an omitted optional input or output ("")
        }
        ValueInfo result = readValueInfo(name, valueInfo);
        valueCache.put(valueInfo.address(), result);
        return result;
    }

    private ValueInfo readValueInfo(String name, MemorySegment valueInfo) {
        ElementType type;
        long[] shape;
        try {
            MemorySegment typeInfo = api.valueInfoTypeInfo(valueInfo);
            if (typeInfo.equals(MemorySegment.NULL) || api.onnxType(typeInfo) != ONNX_TYPE_TENSOR) {
                return new ValueInfo(name, ElementType.UNDEFINED, null, false);
            }
            MemorySegment tensorInfo = api.castToTensorInfo(typeInfo);
            if (tensorInfo.equals(MemorySegment.NULL)) {
                return new ValueInfo(name, ElementType.UNDEFINED, null, false);
            }
            type = elementType(api.tensorElementType(tensorInfo));
            shape = api.tensorHasShape(tensorInfo) ? api.tensorDimensions(tensorInfo) : null;
        } catch (RuntimeException e) {
            // A type ORT cannot describe to us: not a tensor as far as any kernel is concerned.
            return new ValueInfo(name, ElementType.UNDEFINED, null, false);
        }
        boolean constant;
        try {
            constant = api.valueInfoIsConstantInitializer(valueInfo);
        } catch (RuntimeException e) {
            constant = false;
        }
        TensorValue value = null;
        if (constant) {
            try {
                MemorySegment ortValue = api.valueInfoInitializerValue(valueInfo);
                value = ortValue.equals(MemorySegment.NULL) ? null : copySmallTensor(ortValue);
            } catch (RuntimeException e) {
                value = null; // still known to be constant; its data reaches the compiled node as an input
            }
        }
        return new ValueInfo(name, type, shape, true, constant, value);
    }

    private static ElementType elementType(int onnxValue) {
        try {
            return ElementType.fromOnnx(onnxValue);
        } catch (IllegalArgumentException e) {
            return ElementType.UNDEFINED; // a type newer than javaep
        }
    }

    /** The tensor's bytes when it is a fixed-size type of at most {@link ValueInfo#COPIED_CONSTANT_BYTES}, else null. */
    private TensorValue copySmallTensor(MemorySegment ortValue) {
        OrtApi.TensorShape shape = api.tensorShape(ortValue);
        ElementType type = elementType(shape.elementType());
        if (type.byteSize() == 0) {
            return null;
        }
        long elements = 1;
        for (long d : shape.dims()) {
            elements = Math.multiplyExact(elements, d);
        }
        long bytes = Math.multiplyExact(elements, type.byteSize());
        if (bytes > ValueInfo.COPIED_CONSTANT_BYTES) {
            return null;
        }
        ByteBuffer data = ByteBuffer.allocate((int) bytes).order(ByteOrder.LITTLE_ENDIAN);
        if (bytes > 0) {
            data.put(api.tensorMutableData(ortValue).reinterpret(bytes).asByteBuffer());
            data.flip();
        }
        return new TensorValue(type, shape.dims(), data);
    }

    private Map<String, Attribute> attributes(MemorySegment node, int depth) {
        Map<String, Attribute> result = new LinkedHashMap<>();
        Map<String, MemorySegment> subgraphs = null;
        for (MemorySegment attribute : api.nodeAttributes(node)) {
            String name = api.attributeName(attribute);
            int type = -1;
            try {
                type = api.attributeType(attribute);
                if (type == ATTR_GRAPH) {
                    if (subgraphs == null) {
                        subgraphs = api.nodeSubgraphs(node);
                    }
                    result.put(name, graphAttribute(name, subgraphs.get(name), depth));
                } else {
                    result.put(name, attribute(name, type, attribute));
                }
            } catch (RuntimeException | StackOverflowError e) {
                result.put(name, new Attribute.Unreadable(name, type, e.toString()));
            }
        }
        return Collections.unmodifiableMap(result);
    }

    private Attribute graphAttribute(String name, MemorySegment subgraph, int depth) {
        if (subgraph == null || subgraph.equals(MemorySegment.NULL)) {
            return new Attribute.Unreadable(name, ATTR_GRAPH, "ORT returned no subgraph for this attribute");
        }
        if (depth >= MAX_SUBGRAPH_DEPTH) {
            return new Attribute.Unreadable(name, ATTR_GRAPH, "subgraphs nested deeper than " + MAX_SUBGRAPH_DEPTH);
        }
        return new Attribute.GraphAttribute(name, read(subgraph, depth + 1));
    }

    private Attribute attribute(String name, int type, MemorySegment attribute) {
        if (type == ATTR_TENSOR) {
            return tensorAttribute(name, attribute);
        }
        try (Arena arena = Arena.ofConfined()) {
            return switch (type) {
                case ATTR_INT -> new Attribute.IntValue(name, read(attribute, type, arena).get(ValueLayout.JAVA_LONG, 0));
                case ATTR_FLOAT -> new Attribute.FloatValue(name, read(attribute, type, arena).get(ValueLayout.JAVA_FLOAT, 0));
                case ATTR_INTS -> new Attribute.IntList(name, boxLongs(read(attribute, type, arena).toArray(ValueLayout.JAVA_LONG)));
                case ATTR_FLOATS -> new Attribute.FloatList(name, boxFloats(read(attribute, type, arena).toArray(ValueLayout.JAVA_FLOAT)));
                case ATTR_STRING -> new Attribute.StringValue(name, string(read(attribute, type, arena)));
                case ATTR_STRINGS -> new Attribute.StringList(name, strings(read(attribute, type, arena)));
                default -> new Attribute.Unreadable(name, type, "ORT's C API exposes no reader for attribute type " + type
                        + " (TENSORS, SPARSE_TENSOR, GRAPHS, TYPE_PROTO)");
            };
        }
    }

    private MemorySegment read(MemorySegment attribute, int type, Arena arena) {
        return api.readAttribute(attribute, type, arena);
    }

    private Attribute tensorAttribute(String name, MemorySegment attribute) {
        MemorySegment value = api.tensorAttribute(attribute);
        if (value.equals(MemorySegment.NULL)) {
            return new Attribute.Unreadable(name, ATTR_TENSOR, "ORT returned no tensor");
        }
        try {
            TensorValue tensor = copySmallTensor(value);
            return tensor == null
                    ? new Attribute.Unreadable(name, ATTR_TENSOR, "a tensor attribute larger than "
                            + ValueInfo.COPIED_CONSTANT_BYTES + " bytes or of a type without fixed-size elements")
                    : new Attribute.TensorAttribute(name, tensor);
        } finally {
            api.releaseValue(value);
        }
    }

    /**
     * A STRING attribute's bytes: ORT's {@code ReadOpAttr} reports the length with or without a
     * terminating NUL depending on the version, so the value ends at the first NUL or at the end.
     */
    static String string(MemorySegment bytes) {
        byte[] raw = bytes.toArray(ValueLayout.JAVA_BYTE);
        int end = 0;
        while (end < raw.length && raw[end] != 0) {
            end++;
        }
        return new String(raw, 0, end, StandardCharsets.UTF_8);
    }

    /** A STRINGS attribute's bytes: each string followed by a NUL. */
    static List<String> strings(MemorySegment bytes) {
        byte[] raw = bytes.toArray(ValueLayout.JAVA_BYTE);
        List<String> result = new ArrayList<>();
        int start = 0;
        for (int i = 0; i < raw.length; i++) {
            if (raw[i] == 0) {
                result.add(new String(raw, start, i - start, StandardCharsets.UTF_8));
                start = i + 1;
            }
        }
        if (start < raw.length) {
            result.add(new String(raw, start, raw.length - start, StandardCharsets.UTF_8));
        }
        return List.copyOf(result);
    }

    /** An attribute's int64s as the SPI's list (GraphReader's nodes and KernelInfoView's attributes). */
    static List<Long> boxLongs(long[] values) {
        return java.util.Arrays.stream(values).boxed().toList();
    }

    /** An attribute's floats as the SPI's list. */
    static List<Float> boxFloats(float[] values) {
        List<Float> result = new ArrayList<>(values.length);
        for (float v : values) {
            result.add(v);
        }
        return List.copyOf(result);
    }
}
