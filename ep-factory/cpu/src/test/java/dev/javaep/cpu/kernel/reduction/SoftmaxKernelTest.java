package dev.javaep.cpu.kernel.reduction;

import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.cpu.kernel.HostTensor;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SoftmaxKernelTest {

    private static float[] run(SoftmaxKernel k, float[] x, long... shape) {
        try (Arena arena = Arena.ofConfined()) {
            HostTensor in = TestTensors.floats(arena, x, shape);
            HostTensor out = TestTensors.misaligned(arena, ElementType.FLOAT, k.outputShapes(new long[][] {shape})[0]);
            k.compute(List.of(in), List.of(out));
            return TestTensors.toFloats(out);
        }
    }

    /** Softmax over groups: element i belongs to group(i); written with exp of the raw values in double. */
    private static float[] reference(float[] x, java.util.function.LongUnaryOperator group) {
        double[] max = new double[x.length];
        java.util.Arrays.fill(max, Double.NEGATIVE_INFINITY);
        for (int i = 0; i < x.length; i++) {
            int g = (int) group.applyAsLong(i);
            max[g] = Math.max(max[g], x[i]);
        }
        double[] sum = new double[x.length];
        for (int i = 0; i < x.length; i++) {
            int g = (int) group.applyAsLong(i);
            sum[g] += Math.exp(x[i] - max[g]);
        }
        float[] y = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            int g = (int) group.applyAsLong(i);
            y[i] = (float) (Math.exp(x[i] - max[g]) / sum[g]);
        }
        return y;
    }

    @Test
    void largeNumbersGiveTheOnnxTestResult() {
        // test_softmax_large_number: without subtracting the maximum exp(10000) overflows to inf.
        float[] x = {0, 1, 2, 3, 10000, 10001, 10002, 10003};
        float[] expected = {0.032058604f, 0.08714432f, 0.23688284f, 0.6439143f};
        for (SoftmaxKernel k : List.of(new SoftmaxKernel(-1, false), new SoftmaxKernel(1, true))) {
            float[] y = run(k, x, 2, 4);
            for (int i = 0; i < 8; i++) {
                assertEquals(expected[i % 4], y[i], 1e-6f, k + " element " + i);
            }
        }
    }

    @Test
    void opset13NormalizesAlongOneAxis() {
        Random random = new Random(13);
        float[] x = TestTensors.randomFloats(random, 2 * 3 * 4);
        // axis 1 of [2,3,4]: groups are (outer, inner) pairs
        assertArrayEquals(reference(x, i -> (i / 12) * 4 + i % 4), run(new SoftmaxKernel(1, false), x, 2, 3, 4), 1e-6f);
        assertArrayEquals(reference(x, i -> i % 12), run(new SoftmaxKernel(0, false), x, 2, 3, 4), 1e-6f);
        assertArrayEquals(reference(x, i -> i / 4), run(new SoftmaxKernel(-1, false), x, 2, 3, 4), 1e-6f);
        assertArrayEquals(reference(x, i -> i / 4), run(new SoftmaxKernel(2, false), x, 2, 3, 4), 1e-6f);
        assertArrayEquals(reference(x, i -> (i / 12) * 4 + i % 4), run(new SoftmaxKernel(-2, false), x, 2, 3, 4), 1e-6f);
    }

    @Test
    void beforeOpset13TheTrailingDimensionsAreFlattened() {
        Random random = new Random(11);
        float[] x = TestTensors.randomFloats(random, 2 * 3 * 4);
        float[] old = run(new SoftmaxKernel(1, true), x, 2, 3, 4);
        assertArrayEquals(reference(x, i -> i / 12), old, 1e-6f);
        assertNotEquals(old[0], run(new SoftmaxKernel(1, false), x, 2, 3, 4)[0], "the two semantics differ on 3-D input");
        assertArrayEquals(reference(x, i -> 0), run(new SoftmaxKernel(0, true), x, 2, 3, 4), 1e-6f);
        assertArrayEquals(reference(x, i -> i / 12), run(new SoftmaxKernel(-2, true), x, 2, 3, 4), 1e-6f);
    }

    @Test
    void axisOutOfRangeIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> new SoftmaxKernel(3, false).outputShapes(new long[][] {{2, 3, 4}}));
        assertThrows(IllegalArgumentException.class, () -> new SoftmaxKernel(-4, true).outputShapes(new long[][] {{2, 3, 4}}));
        assertThrows(IllegalArgumentException.class, () -> new SoftmaxKernel(-1, false).outputShapes(new long[][] {{}}));
    }
}
