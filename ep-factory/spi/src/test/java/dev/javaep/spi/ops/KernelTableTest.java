package dev.javaep.spi.ops;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ValueInfo;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** One op layer: a schema says what the op is, a backend's table says what it runs; declines name which failed. */
class KernelTableTest {
    private static final ElementType F = ElementType.FLOAT;
    private static final KernelTable<String> TABLE = new KernelTable<>("TestEP", List.of(
            new KernelTable.Row<>(ElementwiseOps.ADD.getLast(), "T", Set.of(F), node -> "add"),
            new KernelTable.Row<>(MatMulOps.GEMM_7, "T", Set.of(F), node -> "gemm7"),
            new KernelTable.Row<>(MatMulOps.GEMM_11, "T", Set.of(F), node -> "gemm11"),
            new KernelTable.Row<>(ReductionOps.SOFTMAX_13, "T", Set.of(F), node -> {
                if (node.intAttribute("axis", -1) > 8) {
                    throw new IllegalArgumentException("axis beyond what this backend does");
                }
                return "softmax";
            })));

    private static ValueInfo t(String name, ElementType type) {
        return new ValueInfo(name, type, new long[] {2}, true);
    }

    private static Node node(String op, int version, List<ValueInfo> inputs, Attribute... attributes) {
        Map<String, Attribute> map = new java.util.HashMap<>();
        for (Attribute a : attributes) {
            map.put(a.name(), a);
        }
        return new Node(1, "n", op, "", version, inputs, List.of(t("y", inputs.isEmpty() || inputs.getFirst() == null
                ? F : inputs.getFirst().elementType())), map);
    }

    private static DeclineCode declined(Node node) {
        return assertInstanceOf(NodeSupport.Declined.class, TABLE.support(node), node::toString).code();
    }

    @Test
    void selectsTheRowOfTheNodesSchemaVersion() {
        assertEquals("add", ((KernelTable.Selection.Selected<String>) TABLE.select(node("Add", 14, List.of(t("a", F), t("b", F))))).kernel());
        assertEquals("gemm11", ((KernelTable.Selection.Selected<String>) TABLE.select(
                node("Gemm", 11, Arrays.asList(t("a", F), t("b", F), null)))).kernel());
        assertEquals("gemm7", ((KernelTable.Selection.Selected<String>) TABLE.select(
                node("Gemm", 7, List.of(t("a", F), t("b", F), t("c", F))))).kernel());
    }

    @Test
    void eachDeclineNamesWhatFailed() {
        assertEquals(DeclineCode.OP_TYPE, declined(node("Erf", 13, List.of(t("a", F)))));
        assertEquals(DeclineCode.OPSET, declined(node("Add", 6, List.of(t("a", F), t("b", F)))));
        assertEquals(DeclineCode.OPSET, declined(node("Softmax", 11, List.of(t("a", F)))), "only Softmax-13 has a row");
        assertEquals(DeclineCode.ARITY, declined(node("Gemm", 7, Arrays.asList(t("a", F), t("b", F), null))),
                "Gemm before 11 needs C");
        assertEquals(DeclineCode.ATTRIBUTE, declined(node("Add", 14, List.of(t("a", F), t("b", F)),
                new Attribute.IntValue("broadcast", 1))), "Add-6's broadcast is not Add-14's");
        assertEquals(DeclineCode.ATTRIBUTE, declined(node("Softmax", 13, List.of(t("a", F)), new Attribute.IntValue("axis", 9))),
                "a value the backend refuses");
        assertEquals(DeclineCode.ELEMENT_TYPE, declined(node("Add", 14, List.of(t("a", F), t("b", ElementType.DOUBLE)))),
                "T binds both inputs");
        assertEquals(DeclineCode.ELEMENT_TYPE, declined(node("Add", 14, List.of(t("a", ElementType.INT64), t("b", ElementType.INT64)))),
                "allowed by ONNX, not by this backend");
        assertEquals(DeclineCode.ELEMENT_TYPE, declined(node("Add", 14, List.of(t("a", ElementType.STRING), t("b", ElementType.STRING)))),
                "not allowed by ONNX");
        assertEquals(DeclineCode.DOMAIN, declined(new Node(1, "n", "Add", "com.example", 1, List.of(t("a", F), t("b", F)),
                List.of(t("y", F)), Map.of())));
        assertTrue(TABLE.support(node("Add", 14, List.of(t("a", F), t("b", F)))).isSupported());
    }

    @Test
    void aRowOutsideTheSchemasTypesIsABug() {
        assertThrows(IllegalArgumentException.class,
                () -> new KernelTable.Row<>(ElementwiseOps.SIGMOID.getLast(), "T", Set.of(ElementType.INT32), node -> "x"));
        assertThrows(IllegalArgumentException.class, () -> new KernelTable.Row<>(ElementwiseOps.SIGMOID.getLast(), "V", Set.of(F), node -> "x"));
    }
}
