package dev.javaep.harness.partition;

import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxGraph;
import dev.javaep.harness.onnx.OnnxModel;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.harness.onnx.OnnxNode;
import dev.javaep.harness.onnx.OnnxTensorData;
import dev.javaep.host.OrtHost;
import dev.javaep.host.TensorData;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;

/**
 * The partition matrix: small models that mix nodes the Java EPs run (their shared op set: Add, Sub,
 * Mul, Div, Relu, Sigmoid, Tanh, MatMul, Gemm, Softmax, float32) with nodes only ORT's CPU EP runs
 * (Hardmax, LpNormalization, CumSum, Slice, Flatten, the int64 shape ops, If), in every position a
 * partitioner can get wrong. Each case says what the EP must claim, per graph; inputs come from a fixed
 * seed. {@link PartitionMatrix} runs them on one EP device: JavaCpu in {@code PartitionMatrixIT},
 * JavaCuda in {@code gpu.CudaPartitionMatrixIT}.
 */
public final class PartitionCases {
    /** The ops both Java EPs run (float32); a model of only these also runs with CPU fallback disabled. */
    public static final Set<String> EP_OPS = Set.of("Add", "Sub", "Mul", "Div", "Relu", "Sigmoid", "Tanh", "MatMul",
            "Gemm", "Softmax");
    static final long OPSET = 17;
    private static final long SEED = 20251124L;

    private PartitionCases() {}

    /**
     * What the EP must claim in one graph (main graph or subgraph, by name), summed over the
     * GetCapability calls ORT makes for that graph.
     */
    public record Claims(int compiledNodes, int minGroups, int maxGroups) {
        static Claims exactly(int groups, int nodes) {
            return new Claims(nodes, groups, groups);
        }

        static Claims atLeast(int groups, int nodes) {
            return new Claims(nodes, groups, nodes);
        }

        static Claims none() {
            return new Claims(0, 0, 0);
        }

        boolean groupsMatch(int groups) {
            return groups >= minGroups && groups <= maxGroups;
        }

        @Override
        public String toString() {
            return compiledNodes + " nodes in " + (minGroups == maxGroups ? minGroups : minGroups + ".." + maxGroups) + " group(s)";
        }
    }

    /**
     * One model of the matrix.
     *
     * @param claims    per graph name: what the EP must claim there; graphs not named must see no claim
     * @param inputSets each is one Run; several shapes on one session for dynamic models
     * @param claimsWithoutNvrtc what JavaCuda's decisions claim where NVRTC is absent (its CUDA C kernels are then
     *                  declined); {@code claims} when that makes no difference
     */
    public record Case(String name, String description, OnnxModel model, Map<String, Claims> claims,
                       List<Map<String, TensorData>> inputSets, Map<String, Claims> claimsWithoutNvrtc) {
        /** A case JavaCuda's decisions claim the same for with or without NVRTC. */
        public Case(String name, String description, OnnxModel model, Map<String, Claims> claims,
                    List<Map<String, TensorData>> inputSets) {
            this(name, description, model, claims, inputSets, claims);
        }

        /**
         * The case as JavaCuda's decisions must claim it here: as JavaCpu where NVRTC is found, else without the
         * nodes whose JavaCuda kernels NVRTC compiles ({@code claimsWithoutNvrtc}).
         */
        public Case forJavaCuda(boolean nvrtcFound) {
            return nvrtcFound ? this : new Case(name, description, model, claimsWithoutNvrtc, inputSets, claimsWithoutNvrtc);
        }

        public byte[] bytes() {
            return OnnxModelWriter.serialize(model);
        }

        /** Every node is one the Java EPs run, so the model also runs with CPU fallback disabled. */
        public boolean epOnly() {
            return epOnly(model.graph());
        }

        private static boolean epOnly(OnnxGraph graph) {
            return graph.nodes().stream().allMatch(n -> EP_OPS.contains(n.opType()) && n.subgraphs().isEmpty());
        }

        @Override
        public String toString() {
            return name;
        }
    }

    /** Every case, in a fixed order. */
    public static List<Case> all() {
        return List.of(cpuNodeBefore(), cpuNodeBetween(), cpuNodeAfter(), diamondWithCpuNode(), diamond(), fanOut(),
                graphOutputConsumedInGroup(), graphInputAsGraphOutput(), shapeSubgraph(), ifWithSupportedBranches(),
                chain16(), dynamicShapes(), issueModel());
    }

    /** Hardmax (CPU) feeds the EP's Add and Sigmoid; x feeds both. */
    static Case cpuNodeBefore() {
        String name = "cpu_node_before";
        OnnxModelWriter w = writer(name)
                .input("x", ElementType.FLOAT, Dim.of(3), Dim.of(6))
                .output("y", ElementType.FLOAT, Dim.of(3), Dim.of(6))
                .node("Hardmax", List.of("x"), List.of("h"), new Attribute.IntValue("axis", -1))
                .node("Add", List.of("h", "x"), List.of("a"))
                .node("Sigmoid", List.of("a"), List.of("y"));
        return new Case(name, "Hardmax (CPU) -> Add -> Sigmoid", w.build(), Map.of(name, Claims.exactly(1, 2)),
                inputs(name, Map.of("x", new long[] {3, 6})));
    }

    /** LpNormalization (CPU) splits two EP runs: two groups, never one. */
    static Case cpuNodeBetween() {
        String name = "cpu_node_between";
        Random random = new Random(SEED);
        OnnxModelWriter w = writer(name)
                .input("x", ElementType.FLOAT, Dim.of(3), Dim.of(6))
                .output("y", ElementType.FLOAT, Dim.of(3), Dim.of(6))
                .initializer("b", values(random, 6), 6)
                .node("Relu", List.of("x"), List.of("r"))
                .node("Tanh", List.of("r"), List.of("t"))
                .node("LpNormalization", List.of("t"), List.of("l"), new Attribute.IntValue("axis", -1),
                        new Attribute.IntValue("p", 2))
                .node("Sigmoid", List.of("l"), List.of("s"))
                .node("Add", List.of("s", "b"), List.of("y"));
        return new Case(name, "Relu -> Tanh -> LpNormalization (CPU) -> Sigmoid -> Add", w.build(),
                Map.of(name, Claims.exactly(2, 4)), inputs(name, Map.of("x", new long[] {3, 6})));
    }

    /**
     * The EP's group feeds CumSum (CPU), which makes the graph output. ORT's level-1 MatMulAddFusion, which
     * runs before partitioning, turns the 2-D MatMul + Add into one Gemm: the EP sees Gemm -> Tanh.
     */
    static Case cpuNodeAfter() {
        String name = "cpu_node_after";
        Random random = new Random(SEED + 1);
        OnnxModelWriter w = writer(name)
                .input("x", ElementType.FLOAT, Dim.of(3), Dim.of(6))
                .output("y", ElementType.FLOAT, Dim.of(3), Dim.of(4))
                .initializer("w", values(random, 24), 6, 4)
                .initializer("b", values(random, 4), 4)
                .initializer(int64("axis", new long[] {1}))
                .node("MatMul", List.of("x", "w"), List.of("m"))
                .node("Add", List.of("m", "b"), List.of("a"))
                .node("Tanh", List.of("a"), List.of("t"))
                .node("CumSum", List.of("t", "axis"), List.of("y"));
        return new Case(name, "MatMul -> Add -> Tanh -> CumSum (CPU)", w.build(), Map.of(name, Claims.exactly(1, 2)),
                inputs(name, Map.of("x", new long[] {3, 6})));
    }

    /**
     * A diamond whose left side is Hardmax (CPU): Relu feeds Hardmax and Sigmoid, Add joins them. One group
     * of Relu, Sigmoid and Add would consume its own output through Hardmax, so there must be two or more.
     */
    static Case diamondWithCpuNode() {
        String name = "diamond_with_cpu_node";
        OnnxModelWriter w = writer(name)
                .input("x", ElementType.FLOAT, Dim.of(4), Dim.of(5))
                .output("y", ElementType.FLOAT, Dim.of(4), Dim.of(5))
                .node("Relu", List.of("x"), List.of("a"))
                .node("Hardmax", List.of("a"), List.of("h"), new Attribute.IntValue("axis", -1))
                .node("Sigmoid", List.of("a"), List.of("s"))
                .node("Add", List.of("h", "s"), List.of("y"));
        return new Case(name, "Relu -> {Hardmax (CPU), Sigmoid} -> Add", w.build(), Map.of(name, Claims.atLeast(2, 3)),
                inputs(name, Map.of("x", new long[] {4, 5})));
    }

    /** The same diamond with an EP node on each side: one group. */
    static Case diamond() {
        String name = "diamond";
        OnnxModelWriter w = writer(name)
                .input("x", ElementType.FLOAT, Dim.of(4), Dim.of(5))
                .output("y", ElementType.FLOAT, Dim.of(4), Dim.of(5))
                .node("Relu", List.of("x"), List.of("a"))
                .node("Tanh", List.of("a"), List.of("l"))
                .node("Sigmoid", List.of("a"), List.of("r"))
                .node("Mul", List.of("l", "r"), List.of("y"));
        return new Case(name, "Relu -> {Tanh, Sigmoid} -> Mul", w.build(), Map.of(name, Claims.exactly(1, 4)),
                inputs(name, Map.of("x", new long[] {4, 5})));
    }

    /** One EP output read by an EP node and by a CPU node: the group must export it. */
    static Case fanOut() {
        String name = "fan_out";
        OnnxModelWriter w = writer(name)
                .input("x", ElementType.FLOAT, Dim.of(3), Dim.of(7))
                .output("y_ep", ElementType.FLOAT, Dim.of(3), Dim.of(7))
                .output("y_cpu", ElementType.FLOAT, Dim.of(3), Dim.of(7))
                .node("Tanh", List.of("x"), List.of("a"))
                .node("Sigmoid", List.of("a"), List.of("y_ep"))
                .node("Hardmax", List.of("a"), List.of("y_cpu"), new Attribute.IntValue("axis", 1));
        return new Case(name, "Tanh -> {Sigmoid, Hardmax (CPU)}", w.build(), Map.of(name, Claims.exactly(1, 2)),
                inputs(name, Map.of("x", new long[] {3, 7})));
    }

    /** A value that is a graph output and also consumed inside the same group. */
    static Case graphOutputConsumedInGroup() {
        String name = "graph_output_consumed_in_group";
        OnnxModelWriter w = writer(name)
                .input("x", ElementType.FLOAT, Dim.of(2), Dim.of(8))
                .output("a", ElementType.FLOAT, Dim.of(2), Dim.of(8))
                .output("y", ElementType.FLOAT, Dim.of(2), Dim.of(8))
                .node("Relu", List.of("x"), List.of("a"))
                .node("Tanh", List.of("a"), List.of("b"))
                .node("Add", List.of("a", "b"), List.of("y"));
        return new Case(name, "Relu (output a) -> Tanh -> Add(a, .)", w.build(), Map.of(name, Claims.exactly(1, 3)),
                inputs(name, Map.of("x", new long[] {2, 8})));
    }

    /** A graph input that is also a graph output, beside a group that reads it. */
    static Case graphInputAsGraphOutput() {
        String name = "graph_input_as_graph_output";
        OnnxModelWriter w = writer(name)
                .input("x", ElementType.FLOAT, Dim.of(2), Dim.of(3))
                .output("x", ElementType.FLOAT, Dim.of(2), Dim.of(3))
                .output("y", ElementType.FLOAT, Dim.of(2), Dim.of(3))
                .node("Sigmoid", List.of("x"), List.of("y"));
        return new Case(name, "x is an output; Sigmoid(x)", w.build(), Map.of(name, Claims.exactly(1, 1)),
                inputs(name, Map.of("x", new long[] {2, 3})));
    }

    /**
     * Shape -> Gather -> Concat -> Reshape (int64, CPU) computes the shape of an EP value from the symbolic
     * batch, and the reshaped value feeds EP nodes.
     */
    static Case shapeSubgraph() {
        String name = "shape_subgraph";
        Random random = new Random(SEED + 2);
        OnnxModelWriter w = writer(name)
                .input("x", ElementType.FLOAT, Dim.param("N"), Dim.of(4), Dim.of(3))
                .output("y", ElementType.FLOAT, Dim.param("N"), Dim.of(5))
                .initializer(int64("first", new long[] {0}, 1))
                .initializer(int64("rest", new long[] {-1}, 1))
                .initializer("w", values(random, 60), 12, 5)
                .node("Relu", List.of("x"), List.of("r"))
                .node("Shape", List.of("x"), List.of("s"))
                .node("Gather", List.of("s", "first"), List.of("n"), new Attribute.IntValue("axis", 0))
                .node("Concat", List.of("n", "rest"), List.of("shape"), new Attribute.IntValue("axis", 0))
                .node("Reshape", List.of("r", "shape"), List.of("z"))
                .node("Sigmoid", List.of("z"), List.of("g"))
                .node("MatMul", List.of("g", "w"), List.of("y"));
        // the Java EPs run the shape arithmetic too (JavaCuda on the host); without NVRTC, JavaCuda leaves Gather and
        // Concat (CUDA C kernels when their inputs are on the device) to ORT's CPU EP
        return new Case(name, "Relu; Shape -> Gather -> Concat -> Reshape; Sigmoid -> MatMul", w.build(),
                Map.of(name, Claims.exactly(1, 7)), inputs(name, Map.of("x", new long[] {2, 4, 3}), Map.of("x", new long[] {5, 4, 3})),
                Map.of(name, Claims.exactly(2, 5)));
    }

    /** If (CPU) whose branches hold EP nodes: ORT asks the EP about each branch as a graph of its own. */
    static Case ifWithSupportedBranches() {
        String name = "if_with_supported_branches";
        OnnxGraph thenBranch = new OnnxModelWriter("then_graph")
                .output("t", ElementType.FLOAT, Dim.of(2), Dim.of(5))
                .node(new OnnxNode("then_relu", "Relu", "", List.of("x"), List.of("t1"), Map.of()))
                .node(new OnnxNode("then_tanh", "Tanh", "", List.of("t1"), List.of("t"), Map.of()))
                .graph();
        OnnxGraph elseBranch = new OnnxModelWriter("else_graph")
                .output("e", ElementType.FLOAT, Dim.of(2), Dim.of(5))
                .initializer("two", new float[] {2}, 1)
                .node(new OnnxNode("else_sigmoid", "Sigmoid", "", List.of("x"), List.of("e1"), Map.of()))
                .node(new OnnxNode("else_mul", "Mul", "", List.of("e1", "two"), List.of("e"), Map.of()))
                .graph();
        OnnxModelWriter w = writer(name)
                .input("c", ElementType.BOOL)
                .input("x", ElementType.FLOAT, Dim.of(2), Dim.of(5))
                .output("y", ElementType.FLOAT, Dim.of(2), Dim.of(5))
                .node("If", List.of("c"), List.of("y"), Map.of("then_branch", thenBranch, "else_branch", elseBranch));
        Random random = new Random(SEED);
        List<Map<String, TensorData>> sets = new ArrayList<>();
        for (boolean condition : new boolean[] {true, false}) {
            sets.add(Map.of("c", new TensorData(ElementType.BOOL, new long[0], new byte[] {(byte) (condition ? 1 : 0)}),
                    "x", floats(random, 2, 5)));
        }
        // ORT before 1.26 names fused nodes of two branches alike and fails the session, so javaep claims no
        // group in subgraphs there (DeclineCode.RUNTIME): the branches then run on ORT's CPU EP.
        Claims branch = fusesInSubgraphs() ? Claims.exactly(1, 2) : Claims.none();
        return new Case(name, "If(c) then Relu -> Tanh else Sigmoid -> Mul", w.build(),
                Map.of(name, Claims.none(), "then_graph", branch, "else_graph", branch),
                List.copyOf(sets));
    }

    /** Whether the ORT under test lets an EP fuse nodes inside If/Loop/Scan subgraphs (1.26 and later). */
    static boolean fusesInSubgraphs() {
        String[] version = OrtHost.shared().version().split("\\.");
        return Integer.parseInt(version[0]) > 1 || Integer.parseInt(version[1]) >= 26;
    }

    /** Sixteen activations in a row: one compiled group, one compiled node per Run. */
    public static Case chain16() {
        String name = "chain16";
        OnnxModelWriter w = writer(name)
                .input("x", ElementType.FLOAT, Dim.of(4), Dim.of(8))
                .output("y", ElementType.FLOAT, Dim.of(4), Dim.of(8));
        String[] activations = {"Tanh", "Sigmoid", "Relu"};
        String previous = "x";
        for (int i = 0; i < 16; i++) {
            String next = i == 15 ? "y" : "v" + i;
            w.node(activations[i % activations.length], List.of(previous), List.of(next));
            previous = next;
        }
        return new Case(name, "16 activations (Tanh, Sigmoid, Relu, ...)", w.build(), Map.of(name, Claims.exactly(1, 16)),
                inputs(name, Map.of("x", new long[] {4, 8})));
    }

    /** Symbolic batch and height, run at several shapes on one session. */
    static Case dynamicShapes() {
        String name = "dynamic_shapes";
        Random random = new Random(SEED + 3);
        OnnxModelWriter w = writer(name)
                .input("x", ElementType.FLOAT, Dim.param("batch"), Dim.param("height"), Dim.of(8))
                .output("y", ElementType.FLOAT, Dim.param("batch"), Dim.param("height"), Dim.of(8))
                .initializer("w", values(random, 64), 8, 8)
                .initializer("b", values(random, 8), 8)
                .node("MatMul", List.of("x", "w"), List.of("m"))
                .node("Add", List.of("m", "b"), List.of("a"))
                .node("Tanh", List.of("a"), List.of("t"))
                .node("Softmax", List.of("t"), List.of("y"), new Attribute.IntValue("axis", -1));
        return new Case(name, "MatMul -> Add -> Tanh -> Softmax over [batch, height, 8]", w.build(),
                Map.of(name, Claims.exactly(1, 4)), inputs(name, Map.of("x", new long[] {1, 1, 8}),
                        Map.of("x", new long[] {2, 3, 8}), Map.of("x", new long[] {4, 7, 8}), Map.of("x", new long[] {2, 3, 8})));
    }

    /**
     * The issue's model: Slice (CPU) -> Relu -> Sigmoid -> Flatten (CPU) -> MatMul -> Add -> Tanh -> Softmax.
     * ORT fuses MatMul + Add into Gemm before partitioning (see {@link #cpuNodeAfter()}): the EP claims
     * Relu, Sigmoid | Gemm, Tanh, Softmax.
     */
    public static Case issueModel() {
        String name = "issue_model";
        Random random = new Random(SEED + 4);
        OnnxModelWriter w = writer(name)
                .input("x", ElementType.FLOAT, Dim.param("batch"), Dim.of(3), Dim.of(8))
                .output("y", ElementType.FLOAT, Dim.param("batch"), Dim.of(5))
                .initializer(new OnnxTensorData("keep", ElementType.BOOL, new long[] {8}, new byte[] {0, 0, 1, 1, 1, 1, 0, 0}))
                .initializer("w", values(random, 60), 12, 5)
                .initializer("b", values(random, 5), 5)
                // x[:, :, 2:6] by an op no Java EP runs, so that ORT's CPU EP feeds the EP's first node
                .node("Compress", List.of("x", "keep"), List.of("sliced"), new Attribute.IntValue("axis", 2))
                .node("Relu", List.of("sliced"), List.of("r"))
                .node("Sigmoid", List.of("r"), List.of("s"))
                .node("Flatten", List.of("s"), List.of("f"), new Attribute.IntValue("axis", 1))
                .node("MatMul", List.of("f", "w"), List.of("m"))
                .node("Add", List.of("m", "b"), List.of("a"))
                .node("Tanh", List.of("a"), List.of("t"))
                .node("Softmax", List.of("t"), List.of("y"), new Attribute.IntValue("axis", -1));
        return new Case(name, "Compress (CPU) -> Relu -> Sigmoid -> Flatten -> MatMul -> Add -> Tanh -> Softmax",
                w.build(), Map.of(name, Claims.exactly(1, 6)),
                inputs(name, Map.of("x", new long[] {2, 3, 8}), Map.of("x", new long[] {3, 3, 8})));
    }

    // ---- helpers --------------------------------------------------------------------------------

    private static OnnxModelWriter writer(String name) {
        return new OnnxModelWriter(name).opset(OPSET);
    }

    /** Float inputs of these shapes, one map per Run, from a seed derived from the case's name. */
    @SafeVarargs
    private static List<Map<String, TensorData>> inputs(String caseName, Map<String, long[]>... shapesPerRun) {
        Random random = new Random(SEED ^ caseName.hashCode());
        List<Map<String, TensorData>> sets = new ArrayList<>();
        for (Map<String, long[]> shapes : shapesPerRun) {
            Map<String, TensorData> set = new LinkedHashMap<>();
            shapes.entrySet().stream().sorted(Map.Entry.comparingByKey())
                    .forEach(e -> set.put(e.getKey(), floats(random, e.getValue())));
            sets.add(Map.copyOf(set));
        }
        return List.copyOf(sets);
    }

    static TensorData floats(Random random, long... shape) {
        long count = 1;
        for (long d : shape) {
            count *= d;
        }
        float[] v = new float[Math.toIntExact(count)];
        for (int i = 0; i < v.length; i++) {
            v[i] = random.nextFloat() * 4 - 2;
        }
        return TensorData.ofFloats(shape, v);
    }

    private static float[] values(Random random, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = random.nextFloat() - 0.5f;
        }
        return v;
    }

    private static OnnxTensorData int64(String name, long[] values, long... dims) {
        ByteBuffer bytes = ByteBuffer.allocate(values.length * Long.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asLongBuffer().put(values);
        return new OnnxTensorData(name, ElementType.INT64, dims, bytes.array());
    }
}
