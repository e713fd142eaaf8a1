package dev.javaep.cuda.kernel;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Graph;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

/** Fused groups as GetCapability hands them to compile: float32 values by name, nodes in topological order. */
public final class Groups {
    private static final AtomicLong IDS = new AtomicLong();

    private Groups() {}

    public static ValueInfo value(String name) {
        return name == null ? null : new ValueInfo(name, ElementType.FLOAT, null, true);
    }

    public static List<ValueInfo> values(String... names) {
        return Arrays.stream(names).map(Groups::value).toList();
    }

    public static Node node(String op, List<String> inputs, String output) {
        return node(op, inputs, output, Map.of(), 13);
    }

    public static Node node(String op, List<String> inputs, String output, Map<String, Attribute> attributes, int opset) {
        return new Node(IDS.incrementAndGet(), op + "_" + output, op, "", opset,
                inputs.stream().map(Groups::value).toList(), List.of(value(output)), attributes);
    }

    public static Graph group(Node... nodes) {
        return new Graph("group", List.of(nodes), List.of(), List.of());
    }

    /** The fused node GetCapability makes for a group: its inputs and outputs in the order Compute sees them. */
    public static Node fused(List<String> inputs, List<String> outputs) {
        return new Node(IDS.incrementAndGet(), "JavaCuda_fused_" + IDS.get(), "JavaCuda_fused", "javaep", 1,
                values(inputs.toArray(String[]::new)), values(outputs.toArray(String[]::new)), Map.of());
    }
}
