package dev.javaep.spi.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class ElementwiseOpsTest {

    @Test
    void eachOpsVersionsFollowOneAnotherWithoutGaps() {
        Map<String, List<OpSchema>> byOp = ElementwiseOps.SCHEMAS.stream().collect(Collectors.groupingBy(OpSchema::opType));
        assertEquals(49, byOp.size());
        byOp.forEach((op, versions) -> {
            for (int i = 0; i + 1 < versions.size(); i++) {
                assertEquals(versions.get(i + 1).since() - 1, versions.get(i).last(), op);
            }
            OpSchema newest = versions.getLast();
            assertEquals(newest.since(), newest.last(), op + ": the newest version covers only itself");
        });
    }

    @Test
    void versionsSplitWhereOnnxChangedTheOp() {
        assertEquals(List.of(7, 13, 14), ElementwiseOps.ADD.stream().map(OpSchema::since).toList());
        assertEquals(List.of(6, 11, 12, 13), ElementwiseOps.CLIP.stream().map(OpSchema::since).toList());
        assertEquals(List.of(6, 9, 13, 19, 21, 23, 24, 25), ElementwiseOps.CAST.stream().map(OpSchema::since).toList());
        assertFalse(ElementwiseOps.RELU.getFirst().types().get("T").contains(ElementType.INT32));
        assertTrue(ElementwiseOps.RELU.getLast().types().get("T").contains(ElementType.INT32));
        assertTrue(ElementwiseOps.CAST.get(3).attributes().containsKey("saturate"));
        assertFalse(ElementwiseOps.CAST.get(2).attributes().containsKey("saturate"));
    }

    private static Node node(String op, int version, ElementType output, Attribute... attributes) {
        Map<String, Attribute> map = new java.util.HashMap<>();
        for (Attribute a : attributes) {
            map.put(a.name(), a);
        }
        return new Node(1, "n", op, "", version, List.of(new ValueInfo("x", ElementType.FLOAT, null, true)),
                List.of(new ValueInfo("y", output, null, true)), map);
    }

    @Test
    void attributeRules() {
        assertEquals(new ElementwiseOps.Activation(0.01f, 0, 0), ElementwiseOps.Activation.of(node("LeakyRelu", 16, ElementType.FLOAT)));
        assertEquals(new ElementwiseOps.Activation(0.3f, 0.5f, 0), ElementwiseOps.Activation.of(node("HardSigmoid", 6, ElementType.FLOAT,
                new Attribute.FloatValue("alpha", 0.3f))));
        assertTrue(ElementwiseOps.geluTanh(node("Gelu", 20, ElementType.FLOAT, new Attribute.StringValue("approximate", "tanh"))));
        assertThrows(IllegalArgumentException.class, () -> ElementwiseOps.fmod(node("Mod", 13, ElementType.FLOAT), ElementType.FLOAT));
        assertThrows(IllegalArgumentException.class, () -> ElementwiseOps.fmod(node("Mod", 13, ElementType.INT32,
                new Attribute.IntValue("fmod", 2)), ElementType.INT32));
        assertEquals(ElementType.INT8, ElementwiseOps.castTarget(node("Cast", 19, ElementType.INT8, new Attribute.IntValue("to", 3))));
        assertThrows(IllegalArgumentException.class, () -> ElementwiseOps.castTarget(node("Cast", 19, ElementType.INT8)));
        assertThrows(IllegalArgumentException.class, () -> ElementwiseOps.castTarget(node("Cast", 19, ElementType.INT8,
                new Attribute.IntValue("to", 999))));
    }

    @Test
    void shapeRules() {
        assertArrayEquals(new long[] {2, 3, 4}, ElementwiseOps.broadcastShape(new long[] {3, 1}, null, new long[] {2, 1, 4}, new long[] {}));
        assertArrayEquals(new long[0], ElementwiseOps.broadcastShape());
        assertArrayEquals(new long[] {1, 3, 5, 5}, ElementwiseOps.preluShape(new long[] {1, 3, 5, 5}, new long[] {3, 1, 1}));
        assertThrows(IllegalArgumentException.class, () -> ElementwiseOps.preluShape(new long[] {3}, new long[] {2, 3}));
        ElementwiseOps.requireClipBound(new long[] {1, 1}, "min");
        ElementwiseOps.requireClipBound(null, "min");
        assertThrows(IllegalArgumentException.class, () -> ElementwiseOps.requireClipBound(new long[] {2}, "max"));
    }
}
