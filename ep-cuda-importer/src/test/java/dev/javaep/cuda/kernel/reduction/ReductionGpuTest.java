package dev.javaep.cuda.kernel.reduction;

import static dev.javaep.cuda.kernel.BothBackends.assertClose;
import static dev.javaep.cuda.kernel.BothBackends.constant;
import static dev.javaep.cuda.kernel.BothBackends.host;
import static dev.javaep.cuda.kernel.BothBackends.int64s;
import static dev.javaep.cuda.kernel.BothBackends.node;
import static dev.javaep.cuda.kernel.BothBackends.value;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.javaep.cuda.kernel.BothBackends;
import dev.javaep.cuda.kernel.GpuTest;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import dev.javaep.spi.ops.ReductionOps.ReduceGeometry;
import dev.javaep.spi.ops.ReductionOps.Reduction;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * JavaCuda's reductions, ArgMax/ArgMin, Softmax and LogSoftmax on GPU 0 against JavaCpu's kernels, float32 and
 * float16. Tolerances (|gpu - cpu| <= atol + rtol*|cpu|): float32 rtol 1e-4, atol 1e-4 (the GPU accumulates in
 * float, the CPU in double); float16 rtol 2e-3 (one float16 ulp is at most 2^-10 relative: both round a float or
 * double result once), atol 2e-3. ArgMax/ArgMin are exact.
 */
@Tag("gpu")
class ReductionGpuTest extends GpuTest {
    private static final ElementType F32 = ElementType.FLOAT;
    private static final ElementType F16 = ElementType.FLOAT16;

    @Override
    protected boolean needsNvrtc() {
        return false;
    }

    private static float[] values(Random random, long count, float from, float to) {
        float[] v = new float[Math.toIntExact(count)];
        for (int i = 0; i < v.length; i++) {
            v[i] = from + random.nextFloat() * (to - from);
        }
        return v;
    }

    private static double rtol(ElementType t) {
        return t == F16 ? 2e-3 : 1e-4;
    }

    private static double atol(ElementType t) {
        return t == F16 ? 2e-3 : 1e-4;
    }

    /** A Reduce op at opset 18 (ReduceSum: 13) with axes as input 1, a constant or a value read at Run. */
    private BothBackends.Outputs reduce(Reduction r, ElementType type, float[] x, long[] shape, long[] axes, boolean keepdims,
                                        boolean constantAxes) {
        int version = r == Reduction.SUM ? 13 : 18;
        ValueInfo axesInfo = constantAxes ? constant("axes", axes) : value("axes", ElementType.INT64, axes.length);
        long[] outShape = ReduceGeometry.of(r.opType(), shape, axes, keepdims, false).outputShape();
        Node node = node(r.opType(), version, List.of(value("x", type, shape), axesInfo), value("y", type, outShape),
                new Attribute.IntValue("keepdims", keepdims ? 1 : 0));
        return gpu.run(node, List.of(host(arena, type, x, shape), int64s(arena, axes)));
    }

    @Test
    void everyReduceOpOverSeveralAxisSetsMatchesJavaCpu() {
        long[] shape = {2, 3, 4, 5};
        // {} everything (rows), {3} last axis (rows), {2, 3} rows, {1} columns, {1, 2} columns, {0, 2} and {0, 3} several groups
        long[][] axisSets = {{}, {3}, {2, 3}, {1}, {1, 2}, {0, 2}, {0, 3}, {-1, 0, 1}};
        Random random = new Random(18);
        for (ElementType type : List.of(F32, F16)) {
            float[] x = values(random, 120, 0.25f, 1.75f); // positive: LogSum is defined, Prod stays in range
            for (Reduction r : Reduction.values()) {
                for (int s = 0; s < axisSets.length; s++) {
                    String what = r + " " + type + " axes " + Arrays.toString(axisSets[s]);
                    assertClose(what, reduce(r, type, x, shape, axisSets[s], s % 2 == 0, s % 3 != 0), rtol(type), atol(type));
                }
            }
        }
    }

    @Test
    void longRowsGlobalPoolingAndWideColumns() {
        Random random = new Random(3);
        for (ElementType type : List.of(F32, F16)) {
            // global average pooling of a ResNet stage: 64 rows of 56*56, a block per row
            long[] pool = {1, 64, 56, 56};
            float[] x = values(random, 64 * 56 * 56, -1, 1);
            assertClose("GlobalAveragePool-like " + type, reduce(Reduction.MEAN, type, x, pool, new long[] {2, 3}, true, true),
                    rtol(type), atol(type));
            assertClose("ReduceMax rows " + type, reduce(Reduction.MAX, type, x, new long[] {4, 50176}, new long[] {1}, false, false),
                    rtol(type), atol(type));
            // LayerNorm's mean over the last axis of [197, 192] (a ViT token matrix): a warp per row
            float[] tokens = values(random, 197 * 192, -2, 2);
            assertClose("ReduceMean tokens " + type, reduce(Reduction.MEAN, type, tokens, new long[] {1, 197, 192}, new long[] {-1}, true, true),
                    rtol(type), atol(type));
            // columns: [3, 300, 70] along 300, more outers than one grid row, and inner not a multiple of 32
            float[] c = values(random, 3 * 300 * 70, -1, 1);
            for (Reduction r : List.of(Reduction.SUM, Reduction.L2, Reduction.LOG_SUM_EXP, Reduction.MIN)) {
                assertClose(r + " columns " + type, reduce(r, type, c, new long[] {3, 300, 70}, new long[] {1}, false, true),
                        rtol(type), type == F16 ? 2e-2 : 1e-3);
            }
        }
    }

    @Test
    void emptySetsNoopAndAttributeAxes() {
        for (ElementType type : List.of(F32, F16)) {
            for (Reduction r : List.of(Reduction.SUM, Reduction.MAX, Reduction.MIN, Reduction.PROD, Reduction.MEAN,
                    Reduction.LOG_SUM_EXP)) {
                assertClose(r + " empty " + type, reduce(r, type, new float[0], new long[] {2, 0, 4}, new long[] {1}, true, true), 0, 0);
            }
            // noop_with_empty_axes: the elementwise part only
            float[] x = {1, -2, 3, 4};
            Node noop = node("ReduceSumSquare", 18, List.of(value("x", type, 2, 2), value("axes", ElementType.INT64, 0)),
                    value("y", type, 2, 2), new Attribute.IntValue("noop_with_empty_axes", 1));
            BothBackends.Outputs squares = gpu.run(noop, List.of(host(arena, type, x, 2, 2), int64s(arena)));
            assertArrayEquals(new float[] {1, 4, 9, 16}, squares.gpu());
            // ReduceMean-13: axes as an attribute
            Node mean13 = node("ReduceMean", 13, List.of(value("x", type, 2, 3, 4)), value("y", type, 2, 1, 4),
                    new Attribute.IntList("axes", List.of(1L)));
            float[] y = values(new Random(1), 24, -1, 1);
            assertClose("ReduceMean-13 " + type, gpu.run(mean13, List.of(host(arena, type, y, 2, 3, 4))), rtol(type), atol(type));
        }
    }

    private BothBackends.Outputs arg(String op, ElementType type, float[] x, long[] shape, long axis, boolean keepdims, boolean last) {
        long[] out = ReduceGeometry.of(op, shape, new long[] {axis}, keepdims, false).outputShape();
        Node node = node(op, 13, List.of(value("x", type, shape)), value("y", ElementType.INT64, out),
                new Attribute.IntValue("axis", axis), new Attribute.IntValue("keepdims", keepdims ? 1 : 0),
                new Attribute.IntValue("select_last_index", last ? 1 : 0));
        return gpu.run(node, List.of(host(arena, type, x, shape)));
    }

    @Test
    void argMaxAndArgMinAreExactIncludingTies() {
        Random random = new Random(12);
        long[] shape = {2, 3, 4, 5};
        float[] x = new float[120];
        for (int i = 0; i < x.length; i++) {
            x[i] = random.nextInt(5) * 0.5f; // few distinct values: ties everywhere
        }
        for (ElementType type : List.of(F32, F16)) {
            for (String op : List.of("ArgMax", "ArgMin")) {
                for (long axis : new long[] {0, 1, 2, -1}) {
                    for (boolean last : new boolean[] {false, true}) {
                        assertClose(op + " " + type + " axis " + axis + " last " + last,
                                arg(op, type, x, shape, axis, axis != 2, last), 0, 0);
                    }
                }
            }
            // segmentation post-processing: ArgMax over 21 classes of a [1, 21, 64, 64] score map
            float[] scores = values(random, 21 * 64 * 64, -5, 5);
            assertClose("segmentation ArgMax " + type, arg("ArgMax", type, scores, new long[] {1, 21, 64, 64}, 1, false, false), 0, 0);
        }
    }

    private BothBackends.Outputs softmax(String op, int version, ElementType type, float[] x, long[] shape, long axis) {
        Node node = node(op, version, List.of(value("x", type, shape)), value("y", type, shape), new Attribute.IntValue("axis", axis));
        return gpu.run(node, List.of(host(arena, type, x, shape)));
    }

    @Test
    void softmaxAndLogSoftmaxEveryFormMatchJavaCpu() {
        Random random = new Random(13);
        float[] x = values(random, 120, -4, 4);
        long[] shape = {2, 3, 4, 5};
        for (ElementType type : List.of(F32, F16)) {
            for (String op : List.of("Softmax", "LogSoftmax")) {
                for (int version : new int[] {11, 13}) {
                    for (long axis : new long[] {0, 1, 2, -1}) {
                        assertClose(op + "-" + version + " " + type + " axis " + axis, softmax(op, version, type, x, shape, axis),
                                rtol(type), atol(type));
                    }
                }
                // ViT attention scores [1, heads, tokens, tokens] along the last axis
                float[] scores = values(random, 4 * 64 * 64, -8, 8);
                assertClose(op + " attention " + type, softmax(op, 13, type, scores, new long[] {1, 4, 64, 64}, -1), rtol(type), atol(type));
                // long rows, few of them: a block per row
                float[] wide = values(random, 2 * 5000, -3, 3);
                assertClose(op + " long rows " + type, softmax(op, 13, type, wide, new long[] {2, 5000}, 1), rtol(type),
                        type == F16 ? 2e-3 : 1e-6);
                float[] large = {0, 1, 2, 3, 10000, 10001, 10002, 10003};
                if (type == F32) {
                    assertClose(op + " large numbers", softmax(op, 13, type, large, new long[] {2, 4}, -1), rtol(type), atol(type));
                }
            }
        }
    }

}
