package dev.javaep.spi.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.spi.ElementType;
import dev.javaep.spi.ops.ReductionOps.Groups;
import dev.javaep.spi.ops.ReductionOps.ReduceGeometry;
import dev.javaep.spi.ops.ReductionOps.Reduction;
import dev.javaep.spi.ops.ReductionOps.SoftmaxGeometry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReductionOpsTest {

    private static Groups groups(long[] shape, long... axes) {
        return ReduceGeometry.of("ReduceSum", shape, axes, true, false).groups();
    }

    @Test
    void reducedAndKeptDimensionsMergeIntoGroups() {
        Groups rows = groups(new long[] {2, 3, 4, 5}, 2, 3);
        assertArrayEquals(new long[] {6, 20}, rows.sizes());
        assertArrayEquals(new long[] {20, 1}, rows.strides());
        assertArrayEquals(new long[] {6, 20, 1}, rows.outerReducedInner(), "global pooling of NCHW is rows");

        Groups columns = groups(new long[] {2, 3, 1, 5}, 1);
        assertArrayEquals(new long[] {2, 3, 5}, columns.sizes(), "the size-1 dimension is dropped");
        assertArrayEquals(new long[] {2, 3, 5}, columns.outerReducedInner());

        Groups twoReduced = groups(new long[] {2, 3, 4}, 0, 2);
        assertEquals(2, twoReduced.reducedGroups());
        assertNull(twoReduced.outerReducedInner());
        assertArrayEquals(new long[] {12, 4, 1}, twoReduced.strides());
        assertArrayEquals(new long[][] {{2, 4}, {12, 1}}, twoReduced.select(true));
        assertArrayEquals(new long[][] {{3}, {4}}, twoReduced.select(false));

        assertArrayEquals(new long[] {24, 1, 1}, groups(new long[] {2, 1, 12}, 1).outerReducedInner(),
                "reducing only size-1 dimensions reduces nothing");
    }

    @Test
    void geometryFollowsKeepdimsAndNoop() {
        ReduceGeometry g = ReduceGeometry.of("ReduceMean", new long[] {2, 3, 4}, new long[] {-1, 0, 2}, false, false);
        assertArrayEquals(new long[] {3}, g.outputShape());
        assertEquals(8, g.reducedCount());
        ReduceGeometry noop = ReduceGeometry.of("ReduceMean", new long[] {2, 3}, new long[0], false, true);
        assertArrayEquals(new long[] {2, 3}, noop.outputShape());
        assertEquals(1, noop.reducedCount());
        assertEquals(0, ReduceGeometry.of("ReduceMean", new long[] {2, 0}, new long[] {1}, true, false).reducedCount());
        assertThrows(IllegalArgumentException.class, () -> ReduceGeometry.of("ReduceMean", new long[] {2}, new long[] {1}, true, false));
    }

    @Test
    void softmaxGeometryCoercesBefore13() {
        assertEquals(new SoftmaxGeometry(2, 12, 1), SoftmaxGeometry.of("Softmax", new long[] {2, 3, 4}, 1, true));
        assertEquals(new SoftmaxGeometry(2, 3, 4), SoftmaxGeometry.of("Softmax", new long[] {2, 3, 4}, 1, false));
        assertEquals(new SoftmaxGeometry(6, 4, 1), SoftmaxGeometry.of("Softmax", new long[] {2, 3, 4}, -1, false));
        assertThrows(IllegalArgumentException.class, () -> SoftmaxGeometry.of("Softmax", new long[] {}, -1, false));
    }

    @Test
    void everyOnnxVersionHasExactlyOneSchema() {
        Map<String, List<OpSchema>> byOp = new HashMap<>();
        for (OpSchema s : OnnxOps.all()) {
            byOp.computeIfAbsent(s.opType(), o -> new ArrayList<>()).add(s);
        }
        for (String op : List.of("ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
                "ReduceSumSquare", "ReduceLogSum", "ReduceLogSumExp", "ArgMax", "ArgMin", "Softmax", "LogSoftmax", "MatMul", "Gemm")) {
            List<OpSchema> schemas = byOp.get(op);
            for (int v = 1; v <= ReductionOps.NEWEST; v++) {
                int version = v;
                assertEquals(1, schemas.stream().filter(s -> s.since() <= version && version <= s.last()).count(), op + "-" + v);
            }
        }
        assertEquals(List.of(1, 11, 12, 13, 18, 20), byOp.get("ReduceMax").stream().map(OpSchema::since).toList());
        assertEquals(List.of(1, 11, 13), byOp.get("ReduceSum").stream().map(OpSchema::since).toList());
        assertEquals(List.of(1, 6, 7, 9, 11, 13), byOp.get("Gemm").stream().map(OpSchema::since).toList());
    }

    @Test
    void axesMoveFromAttributeToInput() {
        OpSchema sum13 = ReductionOps.schemas(Reduction.SUM).get(2);
        assertEquals(List.of("T", ReductionOps.AXES_TYPE), sum13.inputs());
        assertTrue(sum13.attributes().containsKey("noop_with_empty_axes"));
        OpSchema mean13 = ReductionOps.schemas(Reduction.MEAN).get(2);
        assertTrue(mean13.attributes().containsKey("axes"));
        assertEquals(List.of("T"), mean13.inputs());
        OpSchema max18 = ReductionOps.schemas(Reduction.MAX).get(4);
        OpSchema max20 = ReductionOps.schemas(Reduction.MAX).get(5);
        assertFalse(max18.types().get("T").contains(ElementType.BOOL));
        assertTrue(max20.types().get("T").contains(ElementType.BOOL));
    }
}
