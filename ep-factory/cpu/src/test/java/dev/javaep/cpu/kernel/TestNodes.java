package dev.javaep.cpu.kernel;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Nodes for kernel-table tests, described by their element types alone: a table picks a kernel from the op, the
 * version, the types and the attributes, so names and shapes stay unknown, as ORT leaves them for a dynamic model.
 */
public final class TestNodes {
    private TestNodes() {}

    /** A node with the one output {@code output}; a {@code null} input type is an omitted optional input. */
    public static Node node(String op, int version, List<ElementType> inputs, ElementType output, Attribute... attributes) {
        return node(op, version, inputs, List.of(output), attributes);
    }

    /** A node with inputs x0, x1, ... and outputs y0, y1, ...; a {@code null} type is an omitted optional value. */
    public static Node node(String op, int version, List<ElementType> inputs, List<ElementType> outputs, Attribute... attributes) {
        Map<String, Attribute> byName = new HashMap<>();
        for (Attribute a : attributes) {
            byName.put(a.name(), a);
        }
        return new Node(1, op, op, "", version, values("x", inputs), values("y", outputs), byName);
    }

    private static List<ValueInfo> values(String prefix, List<ElementType> types) {
        List<ValueInfo> values = new ArrayList<>();
        for (int i = 0; i < types.size(); i++) {
            values.add(types.get(i) == null ? null : new ValueInfo(prefix + i, types.get(i), null, true));
        }
        return values;
    }

    /** JavaCpu's kernel for {@code node}; a node the table declines fails the test with the table's reason. */
    public static CpuKernel kernel(Node node) {
        return CpuKernels.forNode(node).orElseThrow(() -> new AssertionError(node + ": " + CpuKernels.support(node)));
    }
}
