package dev.javaep.spi.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
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
import dev.javaep.spi.ops.TensorOps.PadMode;
import dev.javaep.spi.ops.TensorOps.StridedCopy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The shape rules and strided copies both backends start their tensor-op kernels with. */
class TensorOpsTest {
    private static long[] l(long... values) {
        return values;
    }

    @Test
    void reshapeCopiesZerosInfersMinusOneAndAllowsZeroSizedDimensions() {
        assertArrayEquals(l(2, 12), TensorOps.reshapeShape(l(2, 3, 4), l(0, -1), false));
        assertArrayEquals(l(4, 2, 3), TensorOps.reshapeShape(l(2, 3, 4), l(4, -1, 3), false));
        assertArrayEquals(l(0, 5), TensorOps.reshapeShape(l(5, 0), l(0, 5), true), "allowzero: 0 is a size");
        assertArrayEquals(l(5, 0), TensorOps.reshapeShape(l(5, 0), l(0, 0), false), "0 copies the input's dims");
        assertThrows(IllegalArgumentException.class, () -> TensorOps.reshapeShape(l(2, 3), l(-1, -1), false));
        assertThrows(IllegalArgumentException.class, () -> TensorOps.reshapeShape(l(2, 3), l(4, -1), false));
        assertThrows(IllegalArgumentException.class, () -> TensorOps.reshapeShape(l(2, 3), l(7), false));
        assertThrows(IllegalArgumentException.class, () -> TensorOps.reshapeShape(l(0, 3), l(0, -1), true));
    }

    @Test
    void flattenSqueezeUnsqueeze() {
        assertArrayEquals(l(1, 24), TensorOps.flattenShape(l(2, 3, 4), 0));
        assertArrayEquals(l(6, 4), TensorOps.flattenShape(l(2, 3, 4), -1));
        assertArrayEquals(l(24, 1), TensorOps.flattenShape(l(2, 3, 4), 3));
        assertThrows(IllegalArgumentException.class, () -> TensorOps.flattenShape(l(2, 3), 3));
        assertArrayEquals(l(3, 4), TensorOps.squeezeShape(l(1, 3, 1, 4, 1), null));
        assertArrayEquals(l(3, 1, 4, 1), TensorOps.squeezeShape(l(1, 3, 1, 4, 1), l(0)));
        assertArrayEquals(l(1, 3, 4), TensorOps.squeezeShape(l(1, 3, 1, 4, 1), l(-1, 2)));
        assertThrows(IllegalArgumentException.class, () -> TensorOps.squeezeShape(l(1, 3), l(1)));
        assertArrayEquals(l(1, 3, 1, 4, 1), TensorOps.unsqueezeShape(l(3, 4), l(4, 0, 2)));
        assertArrayEquals(l(3, 4, 1), TensorOps.unsqueezeShape(l(3, 4), l(-1)));
        assertThrows(IllegalArgumentException.class, () -> TensorOps.unsqueezeShape(l(3), l(0, 0)));
    }

    @Test
    void sliceCountsFromTheBackAndClampsPerDirection() {
        // positive step past the end, negative start
        TensorOps.Rearrangement r = TensorOps.slice(l(10, 4), l(-3, 1), l(100, 1000), null, l(2, 1));
        assertArrayEquals(l(2, 3), r.outputShape());
        assertEquals(7 * 4 + 1, r.copy().sourceOffset());
        // negative step from the end to before the beginning (end = INT64_MIN)
        r = TensorOps.slice(l(10), l(-1), l(Long.MIN_VALUE), l(0), l(-3));
        assertArrayEquals(l(4), r.outputShape(), "9, 6, 3, 0");
        assertEquals(9, r.copy().sourceOffset());
        assertArrayEquals(l(-3), r.copy().sourceStrides());
        r = TensorOps.slice(l(10), l(100), l(-100), l(-1), l(-1));
        assertArrayEquals(l(10), r.outputShape(), "start clamped to dim - 1, end to -1");
        assertArrayEquals(l(0), TensorOps.slice(l(10), l(3), l(3), null, null).outputShape());
        assertArrayEquals(l(0), TensorOps.slice(l(10), l(2), l(5), null, l(-1)).outputShape());
        r = TensorOps.slice(l(10, 4), l(2), l(10), l(0), l(Long.MAX_VALUE));
        assertArrayEquals(l(1, 4), r.outputShape(), "a huge step takes the first element");
        assertEquals(8, r.copy().sourceOffset());
        assertThrows(IllegalArgumentException.class, () -> TensorOps.slice(l(10), l(0), l(5), null, l(0)));
        assertThrows(IllegalArgumentException.class, () -> TensorOps.slice(l(4, 4), l(0, 0), l(1, 1), l(1, -1), null));
    }

    @Test
    void stridedCopiesSimplifyToTheFewestDimensions() {
        StridedCopy plain = StridedCopy.intoContiguous(l(2, 3, 4), TensorOps.contiguousStrides(l(2, 3, 4)), 0);
        assertArrayEquals(l(24), plain.simplified().shape());
        StridedCopy transpose = TensorOps.transpose(l(2, 3, 4), l(0, 2, 1)).copy().simplified();
        assertArrayEquals(l(2, 4, 3), transpose.shape());
        assertArrayEquals(l(12, 1, 4), transpose.sourceStrides());
        StridedCopy expand = TensorOps.expand(l(3, 1), l(2, 1, 1, 5)).copy().simplified();
        assertArrayEquals(l(2, 3, 5), expand.shape(), "the leading 1s dropped");
        assertArrayEquals(l(0, 1, 0), expand.sourceStrides());
        StridedCopy ones = TensorOps.expand(l(1, 1), l(1, 1)).copy().simplified();
        assertEquals(0, ones.rank());
        assertEquals(1, ones.elementCount());
        // Tile [2,3] by [2,1]: [r0=2, d0=2, r1=1, d1=3] -> the repeat stays, d0 and d1 merge
        StridedCopy tile = TensorOps.tile(l(2, 3), l(2, 1)).copy().simplified();
        assertArrayEquals(l(2, 6), tile.shape());
        assertArrayEquals(l(0, 1), tile.sourceStrides());
    }

    @Test
    void concatAndSplitRegions() {
        TensorOps.Concatenation c = TensorOps.concat(new long[][] {l(2, 3, 4), l(2, 1, 4), l(2, 0, 4)}, -2);
        assertArrayEquals(l(2, 4, 4), c.outputShape());
        assertEquals(List.of(0L, 12L, 16L), c.parts().stream().map(StridedCopy::targetOffset).toList());
        assertThrows(IllegalArgumentException.class, () -> TensorOps.concat(new long[][] {l(2, 3), l(3, 3)}, 1));
        assertArrayEquals(l(3, 3, 1), TensorOps.splitSizes(7, null, 3L, 3), "num_outputs: ceil-sized, the last smaller");
        assertArrayEquals(l(2, 2, 2), TensorOps.splitSizes(6, null, null, 3));
        assertThrows(IllegalArgumentException.class, () -> TensorOps.splitSizes(7, null, null, 3));
        assertThrows(IllegalArgumentException.class, () -> TensorOps.splitSizes(7, l(3, 3), null, 2));
        TensorOps.Splitting s = TensorOps.split(l(4, 6), 1, l(1, 0, 5));
        assertArrayEquals(l(4, 0), s.outputShapes()[1]);
        assertEquals(1, s.parts().get(2).sourceOffset());
    }

    @Test
    void padModesMapBorderIndicesToTheInput() {
        long[] reflect = new long[7];
        long[] edge = new long[7];
        long[] wrap = new long[7];
        for (int i = 0; i < 7; i++) {
            reflect[i] = PadMode.REFLECT.sourceIndex(i - 2, 3);
            edge[i] = PadMode.EDGE.sourceIndex(i - 2, 3);
            wrap[i] = PadMode.WRAP.sourceIndex(i - 2, 3);
        }
        // numpy.pad([a, b, c], 2, mode) for reflect, edge, wrap
        assertArrayEquals(l(2, 1, 0, 1, 2, 1, 0), reflect);
        assertArrayEquals(l(0, 0, 0, 1, 2, 2, 2), edge);
        assertArrayEquals(l(1, 2, 0, 1, 2, 0, 1), wrap);
        assertEquals(-1, PadMode.CONSTANT.sourceIndex(-1, 3));
        assertEquals(0, PadMode.REFLECT.sourceIndex(5, 1));
        TensorOps.Padding p = TensorOps.pad(l(2, 3, 4), l(1, -1, 2, 0), l(-1, 0), PadMode.CONSTANT);
        assertArrayEquals(l(1, 3, 7), p.outputShape());
        assertArrayEquals(l(-1, 0, 1), p.begin());
        assertThrows(IllegalArgumentException.class, () -> TensorOps.pad(l(0, 3), l(1, 0, 1, 0), null, PadMode.REFLECT));
        assertThrows(IllegalArgumentException.class, () -> TensorOps.pad(l(2), l(-2, -1), null, PadMode.CONSTANT));
    }

    @Test
    void indexingRules() {
        TensorOps.Gathering g = TensorOps.gather(l(3, 5, 4), l(2, 2), -2);
        assertArrayEquals(l(3, 2, 2, 4), g.outputShape());
        assertEquals(3, g.outer());
        assertEquals(4, g.inner());
        assertEquals(4, TensorOps.index("Gather", -1, 5));
        assertThrows(IllegalArgumentException.class, () -> TensorOps.index("Gather", 5, 5));
        assertThrows(IllegalArgumentException.class, () -> TensorOps.index("Gather", -6, 5));
        TensorOps.Scatter s = TensorOps.scatterND(l(4, 5, 6), l(3, 2), l(3, 6));
        assertEquals(3, s.tuples());
        assertEquals(6, s.sliceSize());
        assertArrayEquals(l(30, 6), s.strides());
        assertThrows(IllegalArgumentException.class, () -> TensorOps.scatterND(l(4, 5), l(3, 1), l(3, 4)));
        assertThrows(IllegalArgumentException.class, () -> TensorOps.gatherElementsAxis(l(2, 2), l(2, 3), 0));
    }

    @Test
    void shapeRangeAndTheGenerators() {
        assertArrayEquals(new int[] {1, 3}, TensorOps.shapeSlice(4, 1, -1L));
        assertArrayEquals(new int[] {0, 4}, TensorOps.shapeSlice(4, -10, 10L));
        assertArrayEquals(new int[] {3, 3}, TensorOps.shapeSlice(4, 3, 1L), "start after end: empty");
        assertEquals(4, TensorOps.rangeCount(10, -7, -5), "10, 5, 0, -5");
        assertEquals(0, TensorOps.rangeCount(1, 5, -1));
        assertEquals(34, TensorOps.rangeCount(-1.5, 7, 0.25));
        assertThrows(IllegalArgumentException.class, () -> TensorOps.rangeCount(1, 2, 0));
        assertEquals(ElementType.FLOAT, TensorOps.fillValue(node("ConstantOfShape", 9, Map.of())).elementType());
        Node ints = node("Constant", 13, Map.of("value_ints", new Attribute.IntList("value_ints", List.of(3L, -1L))));
        assertArrayEquals(l(3, -1), TensorOps.constantValue(ints).longs());
        assertThrows(IllegalArgumentException.class, () -> TensorOps.constantValue(node("Constant", 13,
                Map.of("value_int", new Attribute.IntValue("value_int", 1), "value_float", new Attribute.FloatValue("value_float", 1)))));
        assertEquals((short) 0x3F80, TensorOps.bfloat16(1f));
        assertEquals((short) 0x3F81, TensorOps.bfloat16(Float.intBitsToFloat(0x3F80C000)), "ties round to even (up)");
    }

    private static Node node(String op, int opset, Map<String, Attribute> attributes) {
        return new Node(1, "n", op, "", opset, List.of(), List.of(new ValueInfo("y", null, null, true)), attributes);
    }

    @Test
    void variadicSchemasTakeAnyNumberOfTheirLastInputOrOutput() {
        ValueInfo f = new ValueInfo("f", ElementType.FLOAT, null, true);
        List<ValueInfo> five = List.of(f, f, f, f, f);
        Node concat = new Node(1, "c", "Concat", "", 13, five, List.of(f), Map.of("axis", new Attribute.IntValue("axis", 0)));
        assertTrue(TensorOps.CONCAT_4.check(concat).isEmpty());
        Node split = new Node(1, "s", "Split", "", 18, List.of(f), five, Map.of());
        assertTrue(TensorOps.SPLIT_18.check(split).isEmpty());
        Node mixed = new Node(1, "c", "Concat", "", 13, List.of(f, new ValueInfo("i", ElementType.INT64, null, true)), List.of(f),
                Map.of());
        assertInstanceOf(NodeSupport.Declined.class, TensorOps.CONCAT_4.check(mixed).orElseThrow());
        assertEquals(DeclineCode.ELEMENT_TYPE, TensorOps.CONCAT_4.check(mixed).orElseThrow().code());
        Node noOutputs = new Node(1, "s", "Split", "", 18, List.of(f), List.of(), Map.of());
        assertEquals(DeclineCode.ARITY, TensorOps.SPLIT_18.check(noOutputs).orElseThrow().code());
        Node twoIdentityInputs = new Node(1, "i", "Identity", "", 13, List.of(f, f), List.of(f), Map.of());
        assertEquals(DeclineCode.ARITY, TensorOps.IDENTITY.check(twoIdentityInputs).orElseThrow().code(), "not variadic");
    }

    @Test
    void versionRangesOfAnOpDoNotOverlapAndReachOpset25() {
        Map<String, List<OpSchema>> byOp = new java.util.TreeMap<>();
        for (OpSchema s : TensorOps.SCHEMAS) {
            byOp.computeIfAbsent(s.opType(), k -> new ArrayList<>()).add(s);
        }
        assertEquals(22, byOp.size());
        for (var e : byOp.entrySet()) {
            Set<Integer> versions = new HashSet<>();
            int newest = 0;
            for (OpSchema s : e.getValue()) {
                for (int v = s.since(); v <= s.last(); v++) {
                    assertTrue(versions.add(v), e.getKey() + " " + v + " is in two schemas");
                }
                newest = Math.max(newest, s.last());
            }
            assertEquals(25, newest, e.getKey());
        }
    }
}
