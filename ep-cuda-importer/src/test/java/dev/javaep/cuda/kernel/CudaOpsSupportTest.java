package dev.javaep.cuda.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Graph;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ValueInfo;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** JavaCuda's decision per node, without a GPU: what it runs, and that odd nodes are declined with a reason, never thrown. */
class CudaOpsSupportTest {
    private static ValueInfo tensor(String name, ElementType type) {
        return new ValueInfo(name, type, new long[] {2, 3}, true);
    }

    private static Node node(String op, List<ValueInfo> inputs, List<ValueInfo> outputs, Map<String, Attribute> attributes) {
        return new Node(1, "n", op, "", 13, inputs, outputs, attributes);
    }

    private static NodeSupport support(Node node) {
        return CudaOps.support(node);
    }

    private static void declined(DeclineCode code, Node node) {
        if (!(support(node) instanceof NodeSupport.Declined(DeclineCode actual, String reason))) {
            throw new AssertionError("expected a decline for " + node);
        }
        assertEquals(code, actual, reason);
        assertTrue(!reason.isBlank());
    }

    private static final ValueInfo X = tensor("x", ElementType.FLOAT);
    private static final ValueInfo Y = tensor("y", ElementType.FLOAT);
    private static final ValueInfo Z = tensor("z", ElementType.FLOAT);

    @Test
    void runsTheOpSetInFloat32() {
        for (String op : List.of("Add", "Sub", "Mul", "Div", "MatMul")) {
            assertTrue(support(node(op, List.of(X, Y), List.of(Z), Map.of())).isSupported(), op);
        }
        for (String op : List.of("Relu", "Sigmoid", "Tanh", "Identity")) {
            assertTrue(support(node(op, List.of(X), List.of(Z), Map.of())).isSupported(), op);
        }
        assertTrue(support(node("Softmax", List.of(X), List.of(Z), Map.of("axis", new Attribute.IntValue("axis", 1)))).isSupported());
        assertTrue(support(node("Gemm", Arrays.asList(X, Y, null), List.of(Z), Map.of("alpha", new Attribute.FloatValue("alpha", 2f))))
                .isSupported(), "an omitted optional C");
        assertTrue(support(node("Identity", List.of(tensor("i", ElementType.INT64)), List.of(tensor("o", ElementType.INT64)),
                Map.of())).isSupported(), "Identity copies any fixed-size type");
    }

    @Test
    void declinesOddNodesWithAReasonAndNeverThrows() {
        declined(DeclineCode.UNREADABLE, new Node(1, "n", null, "", 13, List.of(X), List.of(Z), Map.of()));
        declined(DeclineCode.UNREADABLE, new Node(1, "n", "Relu", "", 13, null, List.of(Z), Map.of()));
        declined(DeclineCode.UNREADABLE, new Node(1, "n", "Relu", "", 13, List.of(X), null, Map.of()));
        declined(DeclineCode.DOMAIN, new Node(1, "n", "Relu", "com.microsoft", 1, List.of(X), List.of(Z), Map.of()));
        declined(DeclineCode.OP_TYPE, node("Det", List.of(X), List.of(Z), Map.of()));
        declined(DeclineCode.ARITY, node("Relu", List.of(X), Arrays.asList((ValueInfo) null), Map.of()));
        declined(DeclineCode.ARITY, node("Relu", List.of(), List.of(Z), Map.of()));
        declined(DeclineCode.ARITY, node("Identity", Arrays.asList((ValueInfo) null), List.of(Z), Map.of()));
        declined(DeclineCode.ARITY, node("Add", List.of(X, Y, Z), List.of(Z), Map.of()));
        declined(DeclineCode.ELEMENT_TYPE, node("Add", List.of(X, tensor("i", ElementType.INT32)), List.of(Z), Map.of()));
        declined(DeclineCode.ELEMENT_TYPE, node("Relu", List.of(new ValueInfo("u", null, null, true)), List.of(Z), Map.of()));
        declined(DeclineCode.ELEMENT_TYPE, node("Relu", List.of(tensor("u", ElementType.UNDEFINED)), List.of(Z), Map.of()));
        declined(DeclineCode.ELEMENT_TYPE, node("Identity", List.of(new ValueInfo("u", null, null, true)), List.of(Z), Map.of()));
        declined(DeclineCode.ELEMENT_TYPE, node("Identity", List.of(tensor("s", ElementType.STRING)), List.of(Z), Map.of()));
        declined(DeclineCode.ELEMENT_TYPE, node("Identity", List.of(tensor("q", ElementType.INT4)), List.of(Z), Map.of()));
        declined(DeclineCode.NOT_A_TENSOR, node("Relu", List.of(new ValueInfo("seq", ElementType.UNDEFINED, null, false)),
                List.of(Z), Map.of()));
        declined(DeclineCode.ATTRIBUTE, node("Relu", List.of(X), List.of(Z),
                Map.of("alpha", new Attribute.FloatValue("alpha", 1f))));
        declined(DeclineCode.ATTRIBUTE, node("Softmax", List.of(X), List.of(Z),
                Map.of("axis", new Attribute.Unreadable("axis", 11, "SPARSE_TENSOR is not exposed"))));
        declined(DeclineCode.ATTRIBUTE, node("Softmax", List.of(X), List.of(Z),
                Map.of("axis", new Attribute.FloatValue("axis", 1f))));
        declined(DeclineCode.ATTRIBUTE, node("Relu", List.of(X), List.of(Z),
                Map.of("body", new Attribute.GraphAttribute("body", new Graph("g", List.of(), List.of(), List.of())))));
        Map<String, Attribute> nullValue = new HashMap<>();
        nullValue.put("axis", null);
        declined(DeclineCode.ATTRIBUTE, node("Softmax", List.of(X), List.of(Z), nullValue));
        Map<String, Attribute> nullKey = new HashMap<>();
        nullKey.put(null, new Attribute.IntValue(null, 1));
        declined(DeclineCode.ATTRIBUTE, node("Softmax", List.of(X), List.of(Z), nullKey));
        assertTrue(support(node("Relu", List.of(X), List.of(Z), null)).isSupported(), "no attribute map: no attributes");
        declined(DeclineCode.UNREADABLE, null);
    }
}
