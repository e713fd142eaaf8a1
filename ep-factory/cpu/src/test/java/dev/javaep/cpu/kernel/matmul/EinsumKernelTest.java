package dev.javaep.cpu.kernel.matmul;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class EinsumKernelTest {

    private static float[] run(String equation, float[][] values, long[]... shapes) {
        EinsumKernel k = new EinsumKernel(equation, ElementType.FLOAT);
        try (Arena arena = Arena.ofConfined()) {
            List<HostTensor> inputs = new ArrayList<>();
            for (int i = 0; i < shapes.length; i++) {
                inputs.add(TestTensors.floats(arena, values[i], shapes[i]));
            }
            HostTensor y = TestTensors.misaligned(arena, ElementType.FLOAT, k.outputShapes(shapes)[0]);
            k.compute(inputs, List.of(y));
            return TestTensors.toFloats(y);
        }
    }

    private static float[] random(Random r, long[] shape) {
        return TestTensors.randomFloats(r, Shapes.elementCount(shape));
    }

    @Test
    void batchMatmulIsMatMul() {
        Random r = new Random(1);
        long[] a = {3, 4, 5};
        long[] b = {3, 5, 2};
        float[] av = random(r, a);
        float[] bv = random(r, b);
        float[] einsum = run("bij, bjk -> bik", new float[][] {av, bv}, a, b);
        try (Arena arena = Arena.ofConfined()) {
            HostTensor y = TestTensors.misaligned(arena, ElementType.FLOAT, 3, 4, 2);
            new MatMulKernel().compute(List.of(TestTensors.floats(arena, av, a), TestTensors.floats(arena, bv, b)), List.of(y));
            assertArrayEquals(TestTensors.toFloats(y), einsum, 1e-5f);
        }
    }

    @Test
    void transposeSumTraceDiagonalAndImplicitOutput() {
        float[] m = {1, 2, 3, 4, 5, 6};
        assertArrayEquals(new float[] {1, 4, 2, 5, 3, 6}, run("ij->ji", new float[][] {m}, new long[] {2, 3}));
        assertArrayEquals(new float[] {6, 15}, run("ij->i", new float[][] {m}, new long[] {2, 3}));
        assertArrayEquals(new float[] {21}, run("ij->", new float[][] {m}, new long[] {2, 3}));
        assertArrayEquals(new float[] {1, 4, 2, 5, 3, 6}, run("ji", new float[][] {m}, new long[] {2, 3}),
                "implicit output: labels in alphabetical order");
        float[] square = {1, 2, 3, 4, 5, 6, 7, 8, 9};
        assertArrayEquals(new float[] {15}, run("ii", new float[][] {square}, new long[] {3, 3}), "implicit: a repeated label is summed");
        assertArrayEquals(new float[] {1, 5, 9, 1, 5, 9}, run("...ii->...i", new float[][] {concat(square, square)}, new long[] {2, 3, 3}));
        assertArrayEquals(new float[] {32}, run("i,i", new float[][] {{1, 2, 3}, {4, 5, 6}}, new long[] {3}, new long[] {3}));
        assertArrayEquals(new float[] {6}, run(",->", new float[][] {{2}, {3}}, new long[] {}, new long[] {}));
    }

    @Test
    void ellipsisDimensionsBroadcast() {
        // [2, 1, 3] and [4, 3] through "...i,...i->..." : the ellipsis is [2, 1] and [4] -> [2, 4]
        Random r = new Random(2);
        float[] a = random(r, new long[] {2, 1, 3});
        float[] b = random(r, new long[] {4, 3});
        float[] y = run("...i,...i->...", new float[][] {a, b}, new long[] {2, 1, 3}, new long[] {4, 3});
        assertEquals(8, y.length);
        for (int p = 0; p < 2; p++) {
            for (int q = 0; q < 4; q++) {
                double s = 0;
                for (int i = 0; i < 3; i++) {
                    s += (double) a[p * 3 + i] * b[q * 3 + i];
                }
                assertEquals(s, y[p * 4 + q], 1e-5, p + "," + q);
            }
        }
    }

    @Test
    void malformedEquationsAreRejected() {
        EinsumKernel k = new EinsumKernel("ij,jk->ik", ElementType.FLOAT);
        assertThrows(IllegalArgumentException.class, () -> k.outputShapes(new long[][] {{2, 3}, {4, 5}}), "j differs");
        assertThrows(IllegalArgumentException.class, () -> k.outputShapes(new long[][] {{2, 3}}), "one operand short");
        assertThrows(IllegalArgumentException.class, () -> new EinsumKernel("ij->k", ElementType.FLOAT).outputShapes(new long[][] {{2, 3}}));
        assertThrows(IllegalArgumentException.class, () -> new EinsumKernel("i1->i", ElementType.FLOAT).outputShapes(new long[][] {{2, 3}}));
        assertThrows(IllegalArgumentException.class, () -> new EinsumKernel("ij->ii", ElementType.FLOAT).outputShapes(new long[][] {{2, 3}}));
    }

    private static float[] concat(float[] a, float[] b) {
        float[] c = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, c, a.length, b.length);
        return c;
    }
}
