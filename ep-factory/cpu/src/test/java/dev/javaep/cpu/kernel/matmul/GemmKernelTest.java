package dev.javaep.cpu.kernel.matmul;

import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.Shapes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class GemmKernelTest {

    /** Y = alpha * op(A) op(B) + beta * C, written out with explicit indexing. */
    private static float[] reference(GemmKernel g, float[] a, float[] b, float[] c, long[] cShape, int m, int k, int n) {
        float[] y = new float[m * n];
        for (int i = 0; i < m; i++) {
            for (int j = 0; j < n; j++) {
                double s = 0;
                for (int p = 0; p < k; p++) {
                    float av = g.attributes().transA() ? a[p * m + i] : a[i * k + p];
                    float bv = g.attributes().transB() ? b[j * k + p] : b[p * n + j];
                    s += (double) av * bv;
                }
                double cv = 0;
                if (c != null) {
                    cv = c[(int) TestTensors.broadcastSource((long) i * n + j, new long[] {m, n}, cShape)];
                }
                y[i * n + j] = (float) (g.attributes().alpha() * s + g.attributes().beta() * cv);
            }
        }
        return y;
    }

    private static void check(GemmKernel g, int m, int k, int n, long[] cShape) {
        Random random = new Random(m * 1000 + k * 100 + n + Arrays.hashCode(cShape));
        long[] aShape = g.attributes().transA() ? new long[] {k, m} : new long[] {m, k};
        long[] bShape = g.attributes().transB() ? new long[] {n, k} : new long[] {k, n};
        float[] a = TestTensors.randomFloats(random, (long) m * k);
        float[] b = TestTensors.randomFloats(random, (long) k * n);
        float[] c = cShape == null ? null : TestTensors.randomFloats(random, Shapes.elementCount(cShape));
        try (Arena arena = Arena.ofConfined()) {
            long[][] shapes = cShape == null ? new long[][] {aShape, bShape} : new long[][] {aShape, bShape, cShape};
            assertArrayEquals(new long[] {m, n}, g.outputShapes(shapes)[0]);
            HostTensor y = TestTensors.misaligned(arena, ElementType.FLOAT, m, n);
            y.data().fill((byte) 0x7f);
            HostTensor at = TestTensors.floats(arena, a, aShape);
            HostTensor bt = TestTensors.floats(arena, b, bShape);
            List<HostTensor> inputs = cShape == null
                    ? Arrays.asList(at, bt, null)
                    : List.of(at, bt, TestTensors.floats(arena, c, cShape));
            g.compute(inputs, List.of(y));
            float[] expected = reference(g, a, b, c, cShape, m, k, n);
            float[] actual = TestTensors.toFloats(y);
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i], actual[i], 1e-4f * (k + 1), g + " C" + TestTensors.shape(cShape) + " at " + i);
            }
        }
    }

    @Test
    void everyTransposeCombinationAndCShapeMatchesReference() {
        long[][] cShapes = {null, {}, {1}, {7}, {5, 1}, {1, 7}, {5, 7}};
        for (boolean ta : new boolean[] {false, true}) {
            for (boolean tb : new boolean[] {false, true}) {
                for (long[] cs : cShapes) {
                    check(new GemmKernel(1f, 1f, ta, tb), 5, 3, 7, cs);
                    check(new GemmKernel(0.5f, -2f, ta, tb), 5, 3, 7, cs);
                }
                check(new GemmKernel(0.25f, 0.35f, ta, tb), 3, FloatMatrixProduct.BLOCK_K + 5,
                        FloatMatrixProduct.BLOCK_N + 9, new long[] {FloatMatrixProduct.BLOCK_N + 9});
            }
        }
    }

    @Test
    void zeroBetaIgnoresC() {
        try (Arena arena = Arena.ofConfined()) {
            var g = new GemmKernel(1f, 0f, false, false);
            HostTensor a = TestTensors.floats(arena, new float[] {1, 2}, 1, 2);
            HostTensor b = TestTensors.floats(arena, new float[] {3, 4}, 2, 1);
            HostTensor c = TestTensors.floats(arena, new float[] {Float.NaN}, 1);
            HostTensor y = TestTensors.misaligned(arena, ElementType.FLOAT, 1, 1);
            g.compute(List.of(a, b, c), List.of(y));
            assertArrayEquals(new float[] {11}, TestTensors.toFloats(y));
        }
    }

    @Test
    void incompatibleShapesAreRejected() {
        var plain = new GemmKernel(1f, 1f, false, false);
        assertThrows(IllegalArgumentException.class, () -> plain.outputShapes(new long[][] {{2, 3}, {4, 5}}));
        assertThrows(IllegalArgumentException.class, () -> plain.outputShapes(new long[][] {{2, 3, 1}, {3, 5}}));
        assertThrows(IllegalArgumentException.class, () -> plain.outputShapes(new long[][] {{2, 3}, {3, 5}, {2}}));
        assertThrows(IllegalArgumentException.class, () -> plain.outputShapes(new long[][] {{2, 3}, {3, 5}, {5, 2}}));
        assertThrows(IllegalArgumentException.class, () -> plain.outputShapes(new long[][] {{2, 3}, {3, 5}, {1, 2, 5}}));
        assertArrayEquals(new long[] {3, 5}, new GemmKernel(1f, 1f, true, false).outputShapes(new long[][] {{2, 3}, {2, 5}, null})[0]);
    }
    @Test
    void gemmBeforeOpset7BroadcastsCOnlyWhenAsked() {
        var strict = new GemmKernel(new dev.javaep.spi.ops.MatMulOps.GemmGeometry.Attributes(1f, 1f, false, false, false), ElementType.FLOAT);
        assertThrows(IllegalArgumentException.class, () -> strict.outputShapes(new long[][] {{2, 3}, {3, 5}, {5}}));
        assertArrayEquals(new long[] {2, 5}, strict.outputShapes(new long[][] {{2, 3}, {3, 5}, {2, 5}})[0]);
    }

    @Test
    void float16IsComputedInFloat32AndRoundedOnce() {
        int m = 3;
        int k = 40;
        int n = 5;
        Random random = new Random(16);
        float[] a = TestTensors.randomFloats(random, m * k);
        float[] b = TestTensors.randomFloats(random, k * n);
        float[] c = TestTensors.randomFloats(random, n);
        for (float[] v : List.of(a, b, c)) {
            for (int i = 0; i < v.length; i++) {
                v[i] = Float.float16ToFloat(Float.floatToFloat16(v[i]));
            }
        }
        var attributes = new dev.javaep.spi.ops.MatMulOps.GemmGeometry.Attributes(0.5f, 2f, false, true, true);
        try (Arena arena = Arena.ofConfined()) {
            HostTensor y = TestTensors.misaligned(arena, ElementType.FLOAT16, m, n);
            new GemmKernel(attributes, ElementType.FLOAT16).compute(List.of(halfs(arena, a, m, k), halfs(arena, b, n, k),
                    halfs(arena, c, n)), List.of(y));
            HostTensor y32 = TestTensors.misaligned(arena, ElementType.FLOAT, m, n);
            new GemmKernel(attributes, ElementType.FLOAT).compute(List.of(TestTensors.floats(arena, a, m, k),
                    TestTensors.floats(arena, b, n, k), TestTensors.floats(arena, c, n)), List.of(y32));
            float[] expected = TestTensors.toFloats(y32);
            for (int i = 0; i < m * n; i++) {
                assertEquals(Float.floatToFloat16(expected[i]), y.data().getAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, i),
                        "element " + i);
            }
        }
    }

    static HostTensor halfs(Arena arena, float[] values, long... shape) {
        HostTensor t = TestTensors.misaligned(arena, ElementType.FLOAT16, shape);
        for (int i = 0; i < values.length; i++) {
            t.data().setAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, i, Float.floatToFloat16(values[i]));
        }
        return t;
    }
}
