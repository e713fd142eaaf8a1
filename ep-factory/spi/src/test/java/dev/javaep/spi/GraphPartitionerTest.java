package dev.javaep.spi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

class GraphPartitionerTest {
    private static final Set<String> SUPPORTED = Set.of("Relu", "Add", "Tanh", "Sigmoid");

    private static ValueInfo v(String name) {
        return new ValueInfo(name, ElementType.FLOAT, new long[] {2}, true);
    }

    private static Node node(String name, String op, List<String> inputs, List<String> outputs) {
        return new Node(name.hashCode(), name, op, "", 14, inputs.stream().map(GraphPartitionerTest::v).toList(),
                outputs.stream().map(GraphPartitionerTest::v).toList(), Map.of());
    }

    private static List<List<String>> groups(List<Node> nodes) {
        return GraphPartitioner.groups(nodes, n -> SUPPORTED.contains(n.opType())).stream()
                .map(g -> g.stream().map(Node::name).toList()).toList();
    }

    @Test
    void aSupportedChainIsOneGroup() {
        List<Node> nodes = new ArrayList<>();
        for (int i = 0; i < 16; i++) {
            nodes.add(node("n" + i, i % 2 == 0 ? "Relu" : "Tanh", List.of("v" + i), List.of("v" + (i + 1))));
        }
        assertEquals(List.of(nodes.stream().map(Node::name).toList()), groups(nodes));
    }

    @Test
    void aForeignNodeInsideADiamondSplitsIt() {
        // a -> b(supported) -> d ; a -> c(foreign) -> d: one group {a, b, d} would reach itself through c.
        List<Node> nodes = diamond("Hardmax");
        List<List<String>> groups = groups(nodes);
        assertEquals(List.of(List.of("a", "b"), List.of("d")), groups);
        assertNoGroupReachesItself(nodes, groups);
    }

    @Test
    void aSupportedDiamondIsOneGroup() {
        assertEquals(List.of(List.of("a", "b", "c", "d")), groups(diamond("Sigmoid")));
    }

    /** a -> b -> d and a -> c -> d, with c an {@code middleOp} (Hardmax: foreign to the EP). */
    private static List<Node> diamond(String middleOp) {
        return List.of(
                node("a", "Relu", List.of("x"), List.of("va")),
                node("b", "Tanh", List.of("va"), List.of("vb")),
                node("c", middleOp, List.of("va"), List.of("vc")),
                node("d", "Add", List.of("vb", "vc"), List.of("y")));
    }

    @Test
    void foreignNodesBeforeAndAfterLeaveOneGroupBetween() {
        List<Node> nodes = List.of(
                node("pre", "Hardmax", List.of("x"), List.of("v0")),
                node("a", "Relu", List.of("v0"), List.of("v1")),
                node("b", "Tanh", List.of("v1"), List.of("v2")),
                node("post", "Hardmax", List.of("v2"), List.of("y")));
        assertEquals(List.of(List.of("a", "b")), groups(nodes));
    }

    @Test
    void independentBranchesShareAGroupWhenNoForeignNodeIsBetween() {
        List<Node> nodes = List.of(
                node("a", "Relu", List.of("x1"), List.of("y1")),
                node("b", "Tanh", List.of("x2"), List.of("y2")));
        assertEquals(List.of(List.of("a", "b")), groups(nodes));
    }

    @Test
    void implicitInputsAreEdges() {
        // "if" reads va from its branches only; treating that as no edge would put a and d in one group around it.
        Node a = node("a", "Relu", List.of("x"), List.of("va"));
        Node ifNode = new Node(7, "if", "If", "", 16, List.of(v("cond")), List.of(v("vi")), Map.of(),
                List.of(v("va")), "");
        Node d = node("d", "Add", List.of("va", "vi"), List.of("y"));
        List<List<String>> groups = groups(List.of(a, ifNode, d));
        assertEquals(List.of(List.of("a"), List.of("d")), groups);
    }

    @Test
    void nodesListedOutOfOrderAreSortedTopologically() {
        Node a = node("a", "Relu", List.of("x"), List.of("va"));
        Node b = node("b", "Tanh", List.of("va"), List.of("y"));
        assertEquals(List.of(a, b), GraphPartitioner.topologicalOrder(List.of(b, a)));
        assertEquals(List.of(List.of("a", "b")), groups(List.of(b, a)));
    }

    @Test
    void aCycleIsRefused() {
        Node a = node("a", "Relu", List.of("vb"), List.of("va"));
        Node b = node("b", "Tanh", List.of("va"), List.of("vb"));
        assertThrows(IllegalArgumentException.class, () -> GraphPartitioner.topologicalOrder(List.of(a, b)));
    }

    /** Random DAGs: whatever the partitioner forms, no group may reach itself through a node outside it. */
    @Test
    void randomGraphsNeverGetACyclicGroup() {
        java.util.Random random = new java.util.Random(42);
        String[] ops = {"Relu", "Tanh", "Hardmax", "Add", "Sigmoid", "CumSum"};
        for (int trial = 0; trial < 500; trial++) {
            int n = 2 + random.nextInt(14);
            List<Node> nodes = new ArrayList<>();
            for (int i = 0; i < n; i++) {
                List<String> inputs = new ArrayList<>();
                int fanIn = 1 + random.nextInt(2);
                for (int k = 0; k < fanIn; k++) {
                    inputs.add(i == 0 || random.nextInt(5) == 0 ? "x" : "v" + random.nextInt(i));
                }
                nodes.add(node("n" + i, ops[random.nextInt(ops.length)], inputs, List.of("v" + i)));
            }
            List<List<String>> groups = groups(nodes);
            assertNoGroupReachesItself(nodes, groups);
            Set<String> claimed = new HashSet<>();
            groups.forEach(claimed::addAll);
            for (Node node : nodes) {
                assertEquals(SUPPORTED.contains(node.opType()), claimed.contains(node.name()),
                        "every supported node is in exactly one group: " + node);
            }
        }
    }

    private static void assertNoGroupReachesItself(List<Node> nodes, List<List<String>> groups) {
        Map<String, String> producer = new HashMap<>();
        for (Node node : nodes) {
            node.outputs().forEach(o -> producer.put(o.name(), node.name()));
        }
        Map<String, List<String>> consumers = new HashMap<>();
        for (Node node : nodes) {
            for (ValueInfo input : node.inputs()) {
                String p = producer.get(input.name());
                if (p != null) {
                    consumers.computeIfAbsent(p, k -> new ArrayList<>()).add(node.name());
                }
            }
        }
        for (List<String> group : groups) {
            Set<String> members = Set.copyOf(group);
            // From every member, walk outside the group; reaching a member again is a cycle.
            ArrayList<String> frontier = new ArrayList<>();
            for (String m : group) {
                for (String c : consumers.getOrDefault(m, List.of())) {
                    if (!members.contains(c)) {
                        frontier.add(c);
                    }
                }
            }
            Set<String> seen = new HashSet<>();
            while (!frontier.isEmpty()) {
                String x = frontier.removeLast();
                if (!seen.add(x)) {
                    continue;
                }
                assertTrue(!members.contains(x), "group " + group + " reaches itself through " + x);
                frontier.addAll(consumers.getOrDefault(x, List.of()));
            }
        }
    }
}
