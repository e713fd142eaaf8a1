package dev.javaep.spi;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Splits the nodes an EP runs into groups ORT can fuse: each group becomes one compiled node.
 *
 * <p>A group is valid when no path leaves it through another EP's node and comes back (else the fused
 * node would depend on itself: the diamond case). ORT checks every group an EP hands it with its own
 * partitioner and drops the EP's whole claim when one group would split, so this class forms groups
 * the way ORT's {@code CreateSupportedPartitionNodeGroups} does: a Kahn topological walk in waves;
 * each wave adds every supported node it can reach to the current group and stops at the group's
 * border (unsupported nodes that consume the group's outputs); the next wave starts a new group
 * there. Nodes of a group need not be connected.
 *
 * <p>Edges are data edges between value names, including the implicit inputs of If/Loop/Scan nodes.
 */
public final class GraphPartitioner {
    private GraphPartitioner() {}

    /** The graph's nodes in a topological order (ORT's order where it already is one). */
    public static List<Node> topologicalOrder(List<Node> nodes) {
        Edges edges = new Edges(nodes);
        int[] inDegree = edges.inDegrees();
        Deque<Integer> ready = new ArrayDeque<>();
        for (int i = 0; i < nodes.size(); i++) {
            if (inDegree[i] == 0) {
                ready.add(i);
            }
        }
        List<Node> order = new ArrayList<>(nodes.size());
        while (!ready.isEmpty()) {
            int i = ready.poll();
            order.add(nodes.get(i));
            for (int consumer : edges.consumers(i)) {
                if (--inDegree[consumer] == 0) {
                    ready.add(consumer);
                }
            }
        }
        if (order.size() != nodes.size()) {
            throw new IllegalArgumentException("the graph has a cycle: " + (nodes.size() - order.size())
                    + " nodes are never ready");
        }
        return order;
    }

    /**
     * The fusable groups of the nodes {@code supported} accepts, each in topological order. The predicate
     * decides alone: the bridge declines nodes already assigned to another EP before it asks.
     */
    public static List<List<Node>> groups(List<Node> nodes, Predicate<Node> supported) {
        Edges edges = new Edges(nodes);
        int[] inDegree = edges.inDegrees();
        boolean[] isSupported = new boolean[nodes.size()];
        for (int i = 0; i < nodes.size(); i++) {
            isSupported[i] = supported.test(nodes.get(i));
        }
        Deque<Integer> toProcess = new ArrayDeque<>();
        Deque<Integer> nextWave = new ArrayDeque<>();
        for (int i = 0; i < nodes.size(); i++) {
            if (inDegree[i] == 0) {
                toProcess.add(i);
            }
        }
        List<List<Node>> groups = new ArrayList<>();
        List<Node> group = new ArrayList<>();
        Set<Integer> border = new HashSet<>();
        int processed = 0;
        while (!toProcess.isEmpty() || !nextWave.isEmpty()) {
            if (toProcess.isEmpty()) {
                if (!group.isEmpty()) {
                    groups.add(List.copyOf(group));
                    group.clear();
                }
                border.clear();
                Deque<Integer> swap = toProcess;
                toProcess = nextWave;
                nextWave = swap;
                continue;
            }
            int i = toProcess.poll();
            if (!isSupported[i] && border.contains(i)) {
                nextWave.add(i); // consumes the current group's output: it waits for the next group
                continue;
            }
            if (isSupported[i]) {
                group.add(nodes.get(i));
                border.remove(i);
            }
            for (int consumer : edges.consumers(i)) {
                if (isSupported[i]) {
                    border.add(consumer);
                }
                if (--inDegree[consumer] == 0) {
                    toProcess.add(consumer);
                }
            }
            processed++;
        }
        if (!group.isEmpty()) {
            groups.add(List.copyOf(group));
        }
        if (processed != nodes.size()) {
            throw new IllegalArgumentException("the graph has a cycle: " + (nodes.size() - processed)
                    + " nodes are never ready");
        }
        return groups;
    }

    /** Producer → consumer edges between nodes, by value name; each consumer listed once per producer. */
    private static final class Edges {
        private final List<List<Integer>> consumers;
        private final int[] inDegree;

        Edges(List<Node> nodes) {
            Map<String, Integer> producer = new HashMap<>();
            for (int i = 0; i < nodes.size(); i++) {
                for (ValueInfo output : nodes.get(i).outputs()) {
                    if (output != null && !output.name().isEmpty()) {
                        producer.put(output.name(), i);
                    }
                }
            }
            consumers = new ArrayList<>(nodes.size());
            for (int i = 0; i < nodes.size(); i++) {
                consumers.add(new ArrayList<>());
            }
            inDegree = new int[nodes.size()];
            for (int i = 0; i < nodes.size(); i++) {
                Set<Integer> producers = new LinkedHashSet<>();
                Node node = nodes.get(i);
                for (List<ValueInfo> values : List.of(node.inputs(), node.implicitInputs())) {
                    for (ValueInfo input : values) {
                        if (input == null) {
                            continue;
                        }
                        Integer p = producer.get(input.name());
                        if (p != null && p != i) {
                            producers.add(p);
                        }
                    }
                }
                for (int p : producers) {
                    consumers.get(p).add(i);
                }
                inDegree[i] = producers.size();
            }
        }

        int[] inDegrees() {
            return inDegree.clone();
        }

        List<Integer> consumers(int node) {
            return consumers.get(node);
        }
    }
}
