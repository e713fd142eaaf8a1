package dev.javaep.harness.abi;

import static dev.javaep.harness.abi.Raw.call;
import static dev.javaep.harness.abi.Raw.ok;
import static dev.javaep.harness.abi.Raw.stringOut;
import static dev.javaep.harness.abi.Raw.sizeOut;
import static dev.javaep.harness.abi.Raw.intOut;
import static dev.javaep.harness.abi.Raw.ortApi;
import static dev.javaep.harness.abi.Raw.pointer;
import static dev.javaep.harness.abi.Raw.pointerOut;
import static dev.javaep.harness.abi.Raw.string;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.bridge.CapabilityReports;
import dev.javaep.harness.TestPaths;
import dev.javaep.harness.TestRegistrations;
import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxGraph;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.harness.onnx.OnnxNode;
import dev.javaep.harness.onnx.OnnxTensorData;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Probes of the graph slots an EP calls during GetCapability, and of the kernel-info slots a per-op kernel reads
 * at creation. {@link ProbeHostFactory} hands this test every {@code OrtNode} while it is alive; the test calls
 * the slots on it raw and compares with the model it wrote, in which every node, value, attribute and count is
 * distinct. Another Java EP (the kernel-registry test EP, which claims Relu and nothing else here) runs first and
 * takes the one Relu, so the probe EP is shown one node assigned elsewhere.
 */
@ExtendWith(ProbeVersionCondition.class)
@SuppressWarnings("restricted") // raw pointers from ORT are what a probe reads
class GraphProbeIT {
    /** Takes the one Relu (and nothing else of the model) before the probe EP is asked: JavaCpu would take much more. */
    private static final String OTHER_EP = dev.javaep.harness.kernels.JavaKernelRegistryTestExecutionProvider.NAME;
    private static final String REGISTRATION = "javaep-graph-probes";
    // OrtOpAttrType
    private static final int INT = 1;
    private static final int INTS = 2;
    private static final int FLOAT = 3;
    private static final int FLOATS = 4;
    private static final int STRING = 5;
    private static final int STRINGS = 6;
    private static final int GRAPH = 7;
    private static final int TENSOR = 8;

    private static OrtEnvironment env;
    /** Node name → what the raw slots said about it, filled inside GetCapability. */
    private static final Map<String, Map<String, Object>> OBSERVED = new ConcurrentHashMap<>();

    @BeforeAll
    static void register() {
        env = OrtHost.shared().createEnvironment(REGISTRATION, OrtHost.LogLevel.ERROR);
        TestRegistrations.register(env, REGISTRATION, ProbeHostFactory.NAME, OTHER_EP);
        ProbeHostFactory.onSupport = GraphProbeIT::observe;
    }

    @AfterAll
    static void unregister() {
        ProbeHostFactory.onSupport = node -> {};
        if (env != null) {
            env.unregisterExecutionProviderLibrary(REGISTRATION);
            env.close();
        }
    }

    private static OnnxTensorData int64s(String name, long[] dims, long... values) {
        ByteBuffer bytes = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            bytes.putLong(v);
        }
        return new OnnxTensorData(name, ElementType.INT64, dims, bytes.array());
    }

    private static OnnxNode node(String name, String op, String domain, List<String> in, List<String> out, Attribute... attributes) {
        Map<String, Attribute> byName = new LinkedHashMap<>();
        for (Attribute a : attributes) {
            byName.put(a.name(), a);
        }
        return new OnnxNode(name, op, domain, in, out, byName);
    }

    /** Every attribute kind the writer has, counts that differ everywhere, an omitted input, a Loop with a body. */
    static byte[] model() {
        OnnxGraph body = new OnnxModelWriter("probe_body")
                .input("iter", ElementType.INT64)
                .input("cond_in", ElementType.BOOL)
                .input("acc_in", ElementType.FLOAT, Dim.of(2))
                .output("cond_out", ElementType.BOOL)
                .output("acc_out", ElementType.FLOAT, Dim.of(2))
                .initializer("body_bias", new float[] {0.5f, 0.5f}, 2)
                // ops the other EP has no kernel for, so the body reaches the probe EP unfused
                .node(node("body_max", "FastGelu", "com.microsoft", List.of("acc_in", "w"), List.of("s")))
                .node(node("body_bias_max", "FastGelu", "com.microsoft", List.of("s", "body_bias"), List.of("acc_out")))
                .node(node("body_cond", "IsNaN", "", List.of("acc_in"), List.of("cond_out")))
                .graph();
        return new OnnxModelWriter("probe_graph").opset(17).opset("ai.onnx.ml", 3).opset("com.microsoft", 1)
                .input("x", ElementType.FLOAT, Dim.of(2), Dim.of(3))
                .input("ids", ElementType.INT64, Dim.of(4))
                .input("features", ElementType.FLOAT, Dim.param("N"), Dim.of(2))
                .input("acc0", ElementType.FLOAT, Dim.of(2))
                .output("c", ElementType.FLOAT, Dim.of(3), Dim.of(6))
                .output("p", ElementType.FLOAT, Dim.of(2), Dim.of(5))
                .output("labels", ElementType.STRING, Dim.of(4))
                .output("scaled", ElementType.FLOAT, Dim.param("N"), Dim.of(2))
                .output("acc_final", ElementType.FLOAT, Dim.of(2))
                .output("r", ElementType.FLOAT, Dim.of(2), Dim.of(3))
                .initializer(int64s("pads", new long[] {4}, 0, 1, 0, 1))
                .initializer(int64s("trip", new long[0], 3))
                .initializer("w", new float[] {1f, 1f}, 2)
                .node(node("cpu_relu", "Relu", "", List.of("x"), List.of("r")))
                .node(node("probe_threshold", "ThresholdedRelu", "", List.of("x"), List.of("a"), new Attribute.FloatValue("alpha", 0.25f)))
                .node(node("probe_transpose", "Transpose", "", List.of("a"), List.of("t"),
                        new Attribute.IntList("perm", List.of(1L, 0L))))
                .node(node("probe_concat", "Concat", "", List.of("t", "t", "t"), List.of("c"), new Attribute.IntValue("axis", 1)))
                .node(node("probe_pad", "Pad", "", List.of("x", "pads"), List.of("p"), new Attribute.StringValue("mode", "reflect")))
                .node(node("probe_catmap", "CategoryMapper", "ai.onnx.ml", List.of("ids"), List.of("labels"),
                        new Attribute.IntList("cats_int64s", List.of(1L, 2L, 3L)),
                        new Attribute.StringList("cats_strings", List.of("one", "two", "three")),
                        new Attribute.StringValue("default_string", "none")))
                .node(node("probe_scaler", "Scaler", "ai.onnx.ml", List.of("features"), List.of("scaled"),
                        new Attribute.FloatList("offset", List.of(0.5f, 1.5f)), new Attribute.FloatList("scale", List.of(2f, 4f))))
                .node(new OnnxNode("probe_loop", "Loop", "", List.of("trip", "", "acc0"), List.of("acc_final"), Map.of(),
                        Map.of("body", body)))
                .toByteArray();
    }

    // ---- inside GetCapability ----

    private static void observe(Node node) {
        Map<String, Object> seen = new LinkedHashMap<>();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment n = MemorySegment.ofAddress(node.id());
            seen.put("name", stringOut(arena, OrtApiSlot.Node_GetName, n));
            seen.put("opType", stringOut(arena, OrtApiSlot.Node_GetOperatorType, n));
            seen.put("domain", stringOut(arena, OrtApiSlot.Node_GetDomain, n));
            seen.put("since", intOut(arena, OrtApiSlot.Node_GetSinceVersion, n));
            seen.put("inputs", valueNames(arena, OrtApiSlot.Node_GetNumInputs, OrtApiSlot.Node_GetInputs, n));
            seen.put("outputs", valueNames(arena, OrtApiSlot.Node_GetNumOutputs, OrtApiSlot.Node_GetOutputs, n));
            seen.put("implicitInputs", valueNames(arena, OrtApiSlot.Node_GetNumImplicitInputs, OrtApiSlot.Node_GetImplicitInputs, n));
            seen.put("attributes", attributes(arena, n));
            seen.put("epName", stringOut(arena, OrtApiSlot.Node_GetEpName, n));
            seen.put("inputTypes", inputTypes(arena, n));
            seen.put("constants", constants(arena, n));
            seen.put("subgraphs", subgraphs(arena, n));
        } catch (RuntimeException | AssertionError e) {
            seen.put("error", e.toString());
        }
        OBSERVED.put(String.valueOf(seen.get("name")), seen);
    }

    private static List<MemorySegment> array(Arena arena, OrtApiSlot countSlot, OrtApiSlot arraySlot, MemorySegment object) {
        long count = sizeOut(arena, countSlot, object);
        if (count == 0) {
            return List.of();
        }
        MemorySegment array = arena.allocate(ADDRESS, count);
        ok(ortApi(), arraySlot, object, array, count);
        return Raw.pointers(array, count);
    }

    /** Value names; an omitted optional input reads as "". */
    private static List<String> valueNames(Arena arena, OrtApiSlot countSlot, OrtApiSlot arraySlot, MemorySegment object) {
        List<String> names = new ArrayList<>();
        for (MemorySegment valueInfo : array(arena, countSlot, arraySlot, object)) {
            names.add(valueInfo.equals(MemorySegment.NULL) ? "" : stringOut(arena, OrtApiSlot.GetValueInfoName, valueInfo));
        }
        return names;
    }

    /** Element type per input, through the value info's type info (borrowed: not released). */
    private static List<Integer> inputTypes(Arena arena, MemorySegment n) {
        List<Integer> types = new ArrayList<>();
        for (MemorySegment valueInfo : array(arena, OrtApiSlot.Node_GetNumInputs, OrtApiSlot.Node_GetInputs, n)) {
            if (valueInfo.equals(MemorySegment.NULL)) {
                types.add(-1);
                continue;
            }
            MemorySegment out = arena.allocate(ADDRESS);
            ok(ortApi(), OrtApiSlot.GetValueInfoTypeInfo, valueInfo, out);
            MemorySegment typeInfo = pointer(out);
            if (intOut(arena, OrtApiSlot.GetOnnxTypeFromTypeInfo, typeInfo) != 1) {
                types.add(0);
                continue;
            }
            ok(ortApi(), OrtApiSlot.CastTypeInfoToTensorInfo, typeInfo, out);
            types.add(intOut(arena, OrtApiSlot.GetTensorElementType, pointer(out)));
        }
        return types;
    }

    /** For each input that is a constant initializer: its int64 values (all the model's constants are int64 or float). */
    private static Map<String, Object> constants(Arena arena, MemorySegment n) {
        Map<String, Object> constants = new LinkedHashMap<>();
        for (MemorySegment valueInfo : array(arena, OrtApiSlot.Node_GetNumInputs, OrtApiSlot.Node_GetInputs, n)) {
            if (valueInfo.equals(MemorySegment.NULL)) {
                continue;
            }
            MemorySegment isConstant = arena.allocate(JAVA_BOOLEAN);
            ok(ortApi(), OrtApiSlot.ValueInfo_IsConstantInitializer, valueInfo, isConstant);
            String name = stringOut(arena, OrtApiSlot.GetValueInfoName, valueInfo);
            if (!isConstant.get(JAVA_BOOLEAN, 0)) {
                constants.put(name, false);
                continue;
            }
            MemorySegment out = arena.allocate(ADDRESS);
            ok(ortApi(), OrtApiSlot.ValueInfo_GetInitializerValue, valueInfo, out);
            MemorySegment value = pointer(out);
            long bytes = sizeOut(arena, OrtApiSlot.GetTensorSizeInBytes, value);
            ok(ortApi(), OrtApiSlot.GetTensorData, value, out);
            constants.put(name, java.util.Arrays.stream(pointer(out).reinterpret(bytes).toArray(JAVA_LONG)).boxed().toList());
        }
        return constants;
    }

    /** Attribute name → [type, value read with ReadOpAttr], and the one looked up by name. */
    private static Map<String, List<Object>> attributes(Arena arena, MemorySegment n) {
        Map<String, List<Object>> attributes = new LinkedHashMap<>();
        for (MemorySegment attribute : array(arena, OrtApiSlot.Node_GetNumAttributes, OrtApiSlot.Node_GetAttributes, n)) {
            String name = stringOut(arena, OrtApiSlot.OpAttr_GetName, attribute);
            int type = intOut(arena, OrtApiSlot.OpAttr_GetType, attribute);
            attributes.put(name, List.of(type, read(arena, attribute, type)));
            MemorySegment byName = pointerOut(arena, ortApi(), OrtApiSlot.Node_GetAttributeByName, n, arena.allocateFrom(name));
            if (!byName.equals(attribute)) {
                attributes.put(name, List.of(type, "Node_GetAttributeByName gave another attribute"));
            }
        }
        return attributes;
    }

    private static Object read(Arena arena, MemorySegment attribute, int type) {
        if (type == GRAPH) {
            return "graph";
        }
        if (type == TENSOR) {
            MemorySegment out = arena.allocate(ADDRESS);
            ok(ortApi(), OrtApiSlot.OpAttr_GetTensorAttributeAsOrtValue, attribute, out);
            MemorySegment value = pointer(out);
            ok(ortApi(), OrtApiSlot.GetTensorData, value, out);
            float first = pointer(out).reinterpret(4).get(JAVA_FLOAT, 0);
            call(ortApi(), OrtApiSlot.ReleaseValue, value);
            return first;
        }
        MemorySegment size = arena.allocate(JAVA_LONG);
        MemorySegment query = (MemorySegment) call(ortApi(), OrtApiSlot.ReadOpAttr, attribute, type, MemorySegment.NULL, 0L, size);
        if (!query.equals(MemorySegment.NULL)) {
            call(ortApi(), OrtApiSlot.ReleaseStatus, query); // the size query reports "buffer too small" by design
        }
        long bytes = size.get(JAVA_LONG, 0);
        MemorySegment data = arena.allocate(Math.max(bytes, 8), 8);
        ok(ortApi(), OrtApiSlot.ReadOpAttr, attribute, type, data, Math.max(bytes, 8), size);
        MemorySegment read = data.asSlice(0, size.get(JAVA_LONG, 0));
        return switch (type) {
            case INT -> read.get(JAVA_LONG, 0);
            case FLOAT -> read.get(JAVA_FLOAT, 0);
            case INTS -> java.util.Arrays.stream(read.toArray(JAVA_LONG)).boxed().toList();
            case FLOATS -> {
                List<Float> floats = new ArrayList<>();
                for (float f : read.toArray(JAVA_FLOAT)) {
                    floats.add(f);
                }
                yield floats;
            }
            case STRING -> new String(read.toArray(JAVA_BYTE), StandardCharsets.UTF_8).replace("\0", "");
            case STRINGS -> List.of(new String(read.toArray(JAVA_BYTE), StandardCharsets.UTF_8).split("\0"));
            default -> "type " + type;
        };
    }

    /** Attribute name → what the subgraph's Graph_* slots say. */
    private static Map<String, Map<String, Object>> subgraphs(Arena arena, MemorySegment n) {
        long count = sizeOut(arena, OrtApiSlot.Node_GetNumSubgraphs, n);
        Map<String, Map<String, Object>> result = new LinkedHashMap<>();
        if (count == 0) {
            return result;
        }
        MemorySegment graphs = arena.allocate(ADDRESS, count);
        MemorySegment names = arena.allocate(ADDRESS, count);
        ok(ortApi(), OrtApiSlot.Node_GetSubgraphs, n, graphs, count, names);
        for (int i = 0; i < count; i++) {
            MemorySegment graph = graphs.getAtIndex(ADDRESS, i);
            Map<String, Object> seen = new LinkedHashMap<>();
            seen.put("name", stringOut(arena, OrtApiSlot.Graph_GetName, graph));
            seen.put("inputs", valueNames(arena, OrtApiSlot.Graph_GetNumInputs, OrtApiSlot.Graph_GetInputs, graph));
            seen.put("outputs", valueNames(arena, OrtApiSlot.Graph_GetNumOutputs, OrtApiSlot.Graph_GetOutputs, graph));
            seen.put("initializers", valueNames(arena, OrtApiSlot.Graph_GetNumInitializers, OrtApiSlot.Graph_GetInitializers, graph));
            List<String> nodes = new ArrayList<>();
            for (MemorySegment bodyNode : array(arena, OrtApiSlot.Graph_GetNumNodes, OrtApiSlot.Graph_GetNodes, graph)) {
                nodes.add(stringOut(arena, OrtApiSlot.Node_GetName, bodyNode));
            }
            seen.put("nodes", nodes);
            MemorySegment parent = pointerOut(arena, ortApi(), OrtApiSlot.Graph_GetParentNode, graph);
            seen.put("parentIsThisNode", parent.equals(n));
            long opsets = sizeOut(arena, OrtApiSlot.Graph_GetNumOperatorSets, graph);
            MemorySegment domains = arena.allocate(ADDRESS, opsets);
            MemorySegment versions = arena.allocate(JAVA_LONG, opsets);
            ok(ortApi(), OrtApiSlot.Graph_GetOperatorSets, graph, domains, versions, opsets);
            Map<String, Long> imports = new java.util.TreeMap<>();
            for (int d = 0; d < opsets; d++) {
                imports.put(string(domains.getAtIndex(ADDRESS, d)), versions.getAtIndex(JAVA_LONG, d));
            }
            seen.put("opsets", imports);
            result.put(string(names.getAtIndex(ADDRESS, i)), seen);
        }
        return result;
    }

    // ---- the probes ----

    /**
     * A session with the other EP first and the probe EP second, graph optimizations off (ORT's transpose optimizer
     * would otherwise rewrite the nodes the probes compare); created and released, never run.
     */
    private static void createSession(byte[] model) {
        OBSERVED.clear();
        ProbeHostFactory.CREATED.clear();
        CapabilityReports.clear();
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            ok(ortApi(), OrtApiSlot.CreateSessionOptions, out);
            MemorySegment options = pointer(out);
            ok(ortApi(), OrtApiSlot.SetSessionGraphOptimizationLevel, options, 0);
            for (String ep : List.of(OTHER_EP, ProbeHostFactory.NAME)) {
                MemorySegment device = env.epDevice(ep).handle();
                ok(ortApi(), OrtApiSlot.SessionOptionsAppendExecutionProvider_V2, options, env.handle(),
                        arena.allocateFrom(ADDRESS, device), 1L, MemorySegment.NULL, MemorySegment.NULL, 0L);
            }
            MemorySegment bytes = arena.allocateFrom(JAVA_BYTE, model);
            ok(ortApi(), OrtApiSlot.CreateSessionFromArray, env.handle(), bytes, (long) model.length, options, out);
            call(ortApi(), OrtApiSlot.ReleaseSession, pointer(out));
            call(ortApi(), OrtApiSlot.ReleaseSessionOptions, options);
        }
    }

    private static Map<String, Object> observed(String node) {
        Map<String, Object> seen = OBSERVED.get(node);
        assertTrue(seen != null, () -> "the probe EP was not shown " + node + "; it saw " + OBSERVED.keySet());
        assertTrue(!seen.containsKey("error"), () -> node + ": " + seen.get("error"));
        return seen;
    }

    @Test
    @Probes(value = {"OrtApi::Node_GetName", "OrtApi::Node_GetOperatorType", "OrtApi::Node_GetDomain",
            "OrtApi::Node_GetSinceVersion", "OrtApi::Node_GetNumInputs", "OrtApi::Node_GetInputs", "OrtApi::Node_GetNumOutputs",
            "OrtApi::Node_GetOutputs", "OrtApi::GetValueInfoName", "OrtApi::GetValueInfoTypeInfo", "OrtApi::Node_GetEpName",
            "OrtApi::Graph_GetName", "OrtApi::Graph_GetNumNodes", "OrtApi::Graph_GetNodes"},
            rulesOut = "Name/OperatorType/Domain (349..351) read 'probe_scaler', 'Scaler', 'ai.onnx.ml'; SinceVersion 1 vs"
                    + " Pad's 13; NumInputs/NumOutputs (353/355) 3 vs 1 on Concat; Loop's omitted cond reads as NULL;"
                    + " Pad's inputs are FLOAT then INT64; EpName is \"\" on every node the probe sees, while the Relu"
                    + " the other EP took (javaep read its EP name) is declined as assigned elsewhere; the main graph's name and"
                    + " node count (8) reach javaep's capability report")
    void nodesReadBackAsWritten() {
        createSession(model());
        Map<String, Object> scaler = observed("probe_scaler");
        assertEquals(List.of("probe_scaler", "Scaler", "ai.onnx.ml", 1), List.of(scaler.get("name"), scaler.get("opType"),
                scaler.get("domain"), scaler.get("since")));
        Map<String, Object> pad = observed("probe_pad");
        assertEquals(List.of("Pad", "", 13), List.of(pad.get("opType"), pad.get("domain"), pad.get("since")));
        assertEquals(List.of("x", "pads"), pad.get("inputs"));
        assertEquals(List.of(1, 7), pad.get("inputTypes"), "FLOAT data, INT64 pads");
        assertEquals(List.of("p"), pad.get("outputs"));
        Map<String, Object> concat = observed("probe_concat");
        assertEquals(List.of("t", "t", "t"), concat.get("inputs"));
        assertEquals(List.of("c"), concat.get("outputs"));
        Map<String, Object> loop = observed("probe_loop");
        assertEquals(List.of("trip", "", "acc0"), loop.get("inputs"), "the omitted cond is a NULL value info");
        assertEquals(List.of("acc_final"), loop.get("outputs"));
        assertEquals(List.of("labels"), observed("probe_catmap").get("outputs"));
        assertEquals(List.of(7), observed("probe_catmap").get("inputTypes"), "INT64 ids");
        for (Map<String, Object> seen : OBSERVED.values()) {
            assertEquals("", seen.get("epName"), () -> seen.get("name") + " is shown to the probe EP unassigned");
        }
        var report = CapabilityReports.recent().stream().filter(r -> r.ep().equals(ProbeHostFactory.NAME)
                && r.graph().equals("probe_graph")).findFirst().orElseThrow(() -> new AssertionError(CapabilityReports.recent()));
        assertEquals(8, report.nodes(), report::summary);
        assertEquals(1, report.declines().getOrDefault(DeclineCode.ASSIGNED_ELSEWHERE, 0),
                () -> "The other EP's Relu is declined as assigned elsewhere: " + report.summary() + "; the probe saw " + OBSERVED.keySet());
        assertTrue(!OBSERVED.containsKey("cpu_relu"), "javaep declines an assigned node before asking the EP");
    }

    @Test
    @Probes(value = {"OrtApi::Node_GetNumAttributes", "OrtApi::Node_GetAttributes", "OrtApi::Node_GetAttributeByName",
            "OrtApi::OpAttr_GetName", "OrtApi::OpAttr_GetType", "OrtApi::ReadOpAttr"},
            rulesOut = "OpAttr_GetType (363) and OpAttr_GetName (364) are neighbours: types 1..6 come with names;"
                    + " ReadOpAttr reads each kind's value (0.25, [1, 0], 1, 'reflect', ['one', 'two', 'three'],"
                    + " [0.5, 1.5]); Node_GetAttributeByName returns the same OrtOpAttr as the list")
    void attributesOfEveryKindReadBack() {
        createSession(model());
        assertEquals(Map.of("alpha", List.of(FLOAT, 0.25f)), observed("probe_threshold").get("attributes"));
        assertEquals(Map.of("perm", List.of(INTS, List.of(1L, 0L))), observed("probe_transpose").get("attributes"));
        assertEquals(Map.of("axis", List.of(INT, 1L)), observed("probe_concat").get("attributes"));
        assertEquals(Map.of("mode", List.of(STRING, "reflect")), observed("probe_pad").get("attributes"));
        Map<?, ?> catmap = (Map<?, ?>) observed("probe_catmap").get("attributes");
        assertEquals(List.of(STRINGS, List.of("one", "two", "three")), catmap.get("cats_strings"));
        assertEquals(List.of(INTS, List.of(1L, 2L, 3L)), catmap.get("cats_int64s"));
        assertEquals(List.of(STRING, "none"), catmap.get("default_string"));
        Map<?, ?> scaler = (Map<?, ?>) observed("probe_scaler").get("attributes");
        assertEquals(List.of(FLOATS, List.of(0.5f, 1.5f)), scaler.get("offset"));
        assertEquals(List.of(FLOATS, List.of(2f, 4f)), scaler.get("scale"));
    }

    @Test
    @Probes(value = {"OrtApi::ValueInfo_IsConstantInitializer", "OrtApi::ValueInfo_GetInitializerValue", "OrtApi::GetTensorData"},
            rulesOut = "Pad's data input is not a constant, its pads are, with the values written [0, 1, 0, 1]")
    void constantInitializersCarryTheirValues() {
        createSession(model());
        Map<?, ?> constants = (Map<?, ?>) observed("probe_pad").get("constants");
        assertEquals(false, constants.get("x"));
        assertEquals(List.of(0L, 1L, 0L, 1L), constants.get("pads"));
        assertEquals(List.of(3L), ((Map<?, ?>) observed("probe_loop").get("constants")).get("trip"));
    }

    @Test
    @Probes(value = {"OrtApi::Node_GetNumSubgraphs", "OrtApi::Node_GetSubgraphs", "OrtApi::Node_GetNumImplicitInputs",
            "OrtApi::Node_GetImplicitInputs", "OrtApi::Graph_GetNumInputs", "OrtApi::Graph_GetInputs",
            "OrtApi::Graph_GetNumOutputs", "OrtApi::Graph_GetOutputs", "OrtApi::Graph_GetNumInitializers",
            "OrtApi::Graph_GetInitializers", "OrtApi::Graph_GetParentNode", "OrtApi::Graph_GetNumOperatorSets",
            "OrtApi::Graph_GetOperatorSets"},
            rulesOut = "the Loop body reads back with 3 inputs, 2 outputs, 1 initializer and 3 nodes (the Num* pairs"
                    + " 338..345 all differ), its name, the Loop as its parent, the model's opset imports (17, ml 3), and 'w'"
                    + " as the Loop's one implicit input")
    void aLoopBodyReadsBackAsWritten() {
        createSession(model());
        Map<String, Object> loop = observed("probe_loop");
        assertEquals(List.of("w"), loop.get("implicitInputs"));
        Map<?, ?> subgraphs = (Map<?, ?>) loop.get("subgraphs");
        assertEquals(List.of("body"), List.copyOf(subgraphs.keySet()));
        Map<?, ?> body = (Map<?, ?>) subgraphs.get("body");
        assertEquals("probe_body", body.get("name"));
        assertEquals(List.of("iter", "cond_in", "acc_in"), body.get("inputs"));
        assertEquals(List.of("cond_out", "acc_out"), body.get("outputs"));
        assertEquals(List.of("body_bias"), body.get("initializers"));
        assertEquals(java.util.Set.of("body_max", "body_bias_max", "body_cond"), java.util.Set.copyOf((List<?>) body.get("nodes")),
                "ORT lists the nodes in its own order");
        assertEquals(true, body.get("parentIsThisNode"));
        Map<?, ?> opsets = (Map<?, ?>) body.get("opsets");
        assertEquals(17L, opsets.get(""), opsets::toString);
        assertEquals(3L, opsets.get("ai.onnx.ml"), "the model's imports, beside the domains ORT registers itself");
        assertEquals(Map.of(), observed("probe_pad").get("subgraphs"));
        assertEquals(List.of(), observed("probe_pad").get("implicitInputs"));
    }

    @Test
    @Probes(value = {"OrtApi::OpAttr_GetTensorAttributeAsOrtValue"},
            rulesOut = "ConstantOfShape's value attribute comes back as a tensor holding 1.0 (ONNX node test"
                    + " test_constantofshape_float_ones; the model writer has no TENSOR attributes)")
    void aTensorAttributeReadsBackAsAValue() throws java.io.IOException {
        Path model = TestPaths.nodeTest("test_constantofshape_float_ones").resolve("model.onnx");
        createSession(java.nio.file.Files.readAllBytes(model));
        Map<?, ?> attributes = OBSERVED.values().stream().filter(s -> "ConstantOfShape".equals(s.get("opType")))
                .map(s -> (Map<?, ?>) s.get("attributes")).findFirst().orElseThrow(() -> new AssertionError(OBSERVED));
        assertEquals(List.of(TENSOR, 1.0f), attributes.get("value"));
    }

    @Test
    @Probes(value = {"OrtApi::KernelInfo_GetNodeName", "OrtApi::KernelInfo_GetOperatorType", "OrtApi::KernelInfo_GetOperatorDomain",
            "OrtApi::KernelInfo_GetOperatorSinceVersion", "OrtApi::KernelInfo_GetInputCount", "OrtApi::KernelInfo_GetOutputCount",
            "OrtApi::KernelInfo_GetInputTypeInfo", "OrtApi::KernelInfo_GetOutputTypeInfo", "OrtApi::KernelInfoGetAttribute_float",
            "OrtApi::KernelInfoGetAttribute_int64", "OrtApi::KernelInfoGetAttribute_string",
            "OrtApi::KernelInfoGetAttributeArray_float", "OrtApi::KernelInfoGetAttributeArray_int64",
            "OrtApi::ReleaseTypeInfo", "OrtEpApi::EpGraphSupportInfo_AddSingleNode", "OrtEpApi::EpGraphSupportInfo_LookUpKernel"},
            rulesOut = "GetOperatorDomain/GetOperatorType (392/393): 'ai.onnx.ml' vs 'Scaler'; InputCount/OutputCount"
                    + " (230/231) 3 vs 1 on Concat; Input/OutputTypeInfo (234/235) INT64 pads vs FLOAT output on Pad;"
                    + " the attribute getters 85..87 and 162/163 each read their kind (alpha 0.25, axis 1, mode"
                    + " 'reflect', offset [0.5, 1.5], perm [1, 0]); the five nodes were claimed one by one after the"
                    + " kernel lookup found the probe's kernels")
    void perOpKernelsReadTheirNodeThroughKernelInfo() {
        createSession(model());
        Map<String, ProbeHostFactory.CreatedKernel> byNode = new LinkedHashMap<>();
        ProbeHostFactory.CREATED.forEach(k -> byNode.put(k.nodeName(), k));
        assertEquals(java.util.Set.of("probe_threshold", "probe_transpose", "probe_concat", "probe_pad", "probe_scaler"),
                byNode.keySet(), "one kernel per claimed node");
        var scaler = byNode.get("probe_scaler");
        assertEquals(List.of("Scaler", "ai.onnx.ml", 1), List.of(scaler.opType(), scaler.domain(), scaler.sinceVersion()));
        assertEquals(List.of(0.5f, 1.5f), scaler.offset());
        var concat = byNode.get("probe_concat");
        assertEquals(List.of(3, 1, 1L), List.of(concat.inputCount(), concat.outputCount(), concat.axis()));
        var pad = byNode.get("probe_pad");
        assertEquals(List.of("Pad", "", 13), List.of(pad.opType(), pad.domain(), pad.sinceVersion()));
        assertEquals(List.of(ElementType.FLOAT, ElementType.INT64), pad.inputTypes());
        assertEquals(ElementType.FLOAT, pad.outputType());
        assertEquals("reflect", pad.mode());
        assertEquals(0.25f, byNode.get("probe_threshold").alpha());
        assertEquals(10, byNode.get("probe_threshold").sinceVersion());
        assertEquals(List.of(1L, 0L), byNode.get("probe_transpose").perm());
        assertEquals("absent", byNode.get("probe_transpose").mode(), "an attribute the node lacks reads as the default");
        var report = CapabilityReports.recent().stream().filter(r -> r.ep().equals(ProbeHostFactory.NAME)
                && r.graph().equals("probe_graph")).findFirst().orElseThrow();
        assertEquals(5, report.kernelNodes(), report::summary);
    }
}
