package dev.javaep.cpu.kernel.matmul;

import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.Shapes;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MatMulKernelTest {
    private final MatMulKernel kernel = new MatMulKernel();

    private long[] shapeOf(long[] a, long[] b) {
        return kernel.outputShapes(new long[][] {a, b})[0];
    }

    @Test
    void outputShapesFollowNumpy() {
        assertArrayEquals(new long[] {2, 4}, shapeOf(new long[] {2, 3}, new long[] {3, 4}));
        assertArrayEquals(new long[] {}, shapeOf(new long[] {3}, new long[] {3}));
        assertArrayEquals(new long[] {2}, shapeOf(new long[] {2, 3}, new long[] {3}));
        assertArrayEquals(new long[] {4}, shapeOf(new long[] {3}, new long[] {3, 4}));
        assertArrayEquals(new long[] {5, 4}, shapeOf(new long[] {3}, new long[] {5, 3, 4}));
        assertArrayEquals(new long[] {5, 2}, shapeOf(new long[] {5, 2, 3}, new long[] {3}));
        assertArrayEquals(new long[] {2, 5, 3, 2}, shapeOf(new long[] {2, 1, 3, 4}, new long[] {5, 4, 2}));
        assertArrayEquals(new long[] {0, 7}, shapeOf(new long[] {0, 3}, new long[] {3, 7}));
    }

    @Test
    void incompatibleShapesAreRejected() {
        var inner = assertThrows(IllegalArgumentException.class, () -> shapeOf(new long[] {2, 3}, new long[] {4, 5}));
        assertTrue(inner.getMessage().contains("K=3") && inner.getMessage().contains("K=4"), inner.getMessage());
        assertThrows(IllegalArgumentException.class, () -> shapeOf(new long[] {2, 2, 3}, new long[] {3, 3, 4}));
        assertThrows(IllegalArgumentException.class, () -> shapeOf(new long[] {}, new long[] {3}));
    }

    /** The textbook triple loop with batch broadcasting done by dividing indices. */
    private static float[] reference(float[] a, long[] as, float[] b, long[] bs) {
        long[] a2 = as.length == 1 ? new long[] {1, as[0]} : as;
        long[] b2 = bs.length == 1 ? new long[] {bs[0], 1} : bs;
        int m = (int) a2[a2.length - 2];
        int k = (int) a2[a2.length - 1];
        int n = (int) b2[b2.length - 1];
        long[] batchA = Arrays.copyOf(a2, a2.length - 2);
        long[] batchB = Arrays.copyOf(b2, b2.length - 2);
        long[] batch = Broadcasting.multidirectional(batchA, batchB);
        int batches = (int) Shapes.elementCount(batch);
        float[] y = new float[batches * m * n];
        for (int t = 0; t < batches; t++) {
            int ab = (int) TestTensors.broadcastSource(t, batch, batchA);
            int bb = (int) TestTensors.broadcastSource(t, batch, batchB);
            for (int i = 0; i < m; i++) {
                for (int j = 0; j < n; j++) {
                    double s = 0;
                    for (int p = 0; p < k; p++) {
                        s += (double) a[ab * m * k + i * k + p] * b[bb * k * n + p * n + j];
                    }
                    y[t * m * n + i * n + j] = (float) s;
                }
            }
        }
        return y;
    }

    private void check(long[] as, long[] bs) {
        Random random = new Random(Arrays.hashCode(as) * 31 + Arrays.hashCode(bs));
        float[] a = TestTensors.randomFloats(random, Shapes.elementCount(as));
        float[] b = TestTensors.randomFloats(random, Shapes.elementCount(bs));
        try (Arena arena = Arena.ofConfined()) {
            HostTensor y = TestTensors.misaligned(arena, ElementType.FLOAT, shapeOf(as, bs));
            y.data().fill((byte) 0x7f); // garbage the kernel must overwrite
            kernel.compute(List.of(TestTensors.floats(arena, a, as), TestTensors.floats(arena, b, bs)), List.of(y));
            float[] expected = reference(a, as, b, bs);
            float[] actual = TestTensors.toFloats(y);
            assertEquals(expected.length, actual.length);
            long k = as[as.length - 1];
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i], actual[i], 1e-5f * (k + 1),
                        "element " + i + " of " + TestTensors.shape(as) + " x " + TestTensors.shape(bs));
            }
        }
    }

    @Test
    void matchesReferenceIncludingPromotionAndBatchBroadcasting() {
        check(new long[] {2, 3}, new long[] {3, 4});
        check(new long[] {3}, new long[] {3});
        check(new long[] {2, 3}, new long[] {3});
        check(new long[] {3}, new long[] {3, 4});
        check(new long[] {3}, new long[] {2, 3, 4});
        check(new long[] {2, 3, 4}, new long[] {4, 5});        // B shared: batches folded into M
        check(new long[] {2, 3, 4}, new long[] {1, 4, 5});     // B batch of one: also folded
        check(new long[] {3, 4}, new long[] {2, 4, 5});        // A shared across B's batches
        check(new long[] {2, 1, 3, 4}, new long[] {5, 4, 2});
        check(new long[] {1, 2, 2, 3}, new long[] {2, 1, 3, 2});
        check(new long[] {1, 1}, new long[] {1, 1});
    }

    @Test
    void matchesReferenceAcrossBlockBoundaries() {
        int kb = FloatMatrixProduct.BLOCK_K;
        int nb = FloatMatrixProduct.BLOCK_N;
        check(new long[] {5, kb + 3}, new long[] {kb + 3, nb + 7});
        check(new long[] {2, 3, 2 * kb}, new long[] {2, 2 * kb, nb - 1});
        check(new long[] {33, 1}, new long[] {1, 2 * nb + 1});
    }

    @Test
    void emptyInnerDimensionGivesZeros() {
        try (Arena arena = Arena.ofConfined()) {
            HostTensor a = TestTensors.misaligned(arena, ElementType.FLOAT, 2, 0);
            HostTensor b = TestTensors.misaligned(arena, ElementType.FLOAT, 0, 3);
            HostTensor y = TestTensors.misaligned(arena, ElementType.FLOAT, 2, 3);
            y.data().fill((byte) 0x7f);
            kernel.compute(List.of(a, b), List.of(y));
            assertArrayEquals(new float[6], TestTensors.toFloats(y));
        }
    }
    @Test
    void float16IsComputedInFloat32AndRoundedOnce() {
        // the ViT attention shape: [1, 4, 64, 32] x [1, 4, 32, 64]
        long[] as = {1, 4, 64, 32};
        long[] bs = {1, 4, 32, 64};
        Random random = new Random(4);
        float[] a = TestTensors.randomFloats(random, Shapes.elementCount(as));
        float[] b = TestTensors.randomFloats(random, Shapes.elementCount(bs));
        for (float[] v : List.of(a, b)) {
            for (int i = 0; i < v.length; i++) {
                v[i] = Float.float16ToFloat(Float.floatToFloat16(v[i]));
            }
        }
        try (Arena arena = Arena.ofConfined()) {
            HostTensor y = TestTensors.misaligned(arena, ElementType.FLOAT16, 1, 4, 64, 64);
            new MatMulKernel(ElementType.FLOAT16).compute(List.of(GemmKernelTest.halfs(arena, a, as), GemmKernelTest.halfs(arena, b, bs)),
                    List.of(y));
            float[] expected = reference(a, as, b, bs);
            for (int i = 0; i < expected.length; i++) {
                float actual = Float.float16ToFloat(y.data().getAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, i));
                assertEquals(expected[i], actual, Math.abs(expected[i]) * 0x1p-11f + 1e-4f, // half a float16 ulp, plus float32 rounding
                        "element " + i);
            }
        }
    }
}
