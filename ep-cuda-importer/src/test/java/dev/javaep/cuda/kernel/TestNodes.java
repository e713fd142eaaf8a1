package dev.javaep.cuda.kernel;

import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.driver.Nvrtc;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ValueInfo;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Nodes for JavaCuda's kernel-table and GPU tests, described by their element types alone (names and shapes unknown,
 * as ORT leaves them for a dynamic model), and what the table makes of them. JavaCpu's tests have their own copy of
 * the node builder: the two test trees share no test jar.
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

    /**
     * Asserts what JavaCuda makes of a node its CUDA C kernels compute: compiled where NVRTC is present, declined
     * for NVRTC's absence (with the reason that names what is missing) where it is not.
     */
    public static void assertCompiledUnlessNvrtcIsAbsent(Node node) {
        NodeSupport support = CudaOps.support(node);
        if (CudaKernelLibrary.compilesSources()) {
            assertInstanceOf(NodeSupport.Compiled.class, support, node + ": " + support);
        } else {
            var declined = assertInstanceOf(NodeSupport.Declined.class, support, node.toString());
            assertTrue(declined.reason().contains(Nvrtc.absenceReason()), declined.reason());
        }
    }
}
