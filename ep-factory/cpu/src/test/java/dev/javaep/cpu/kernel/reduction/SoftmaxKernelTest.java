package dev.javaep.cpu.kernel.reduction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class SoftmaxKernelTest {

    private static float[] run(SoftmaxKernel k, float[] x, long... shape) {
        return TestTensors.runOnFloats(k, ElementType.FLOAT, TestTensors::toFloats, x, shape);
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
    @Test
    void logSoftmaxIsShiftedNotTheLogOfARoundedSoftmax() {
        Random random = new Random(5);
        float[] x = TestTensors.randomFloats(random, 2 * 3 * 4);
        for (var k : List.of(new SoftmaxKernel(1, false, true, ElementType.FLOAT), new SoftmaxKernel(-1, false, true, ElementType.FLOAT),
                new SoftmaxKernel(1, true, true, ElementType.FLOAT))) {
            float[] softmax = run(new SoftmaxKernel(k.axis(), k.coerceTo2d()), x, 2, 3, 4);
            float[] log = run(k, x, 2, 3, 4);
            for (int i = 0; i < x.length; i++) {
                assertEquals(Math.log(softmax[i]), log[i], 1e-5, k + " element " + i);
            }
        }
        // test_logsoftmax_large_number: log(softmax) would be log(0) = -inf for the small ones
        float[] y = run(new SoftmaxKernel(-1, false, true, ElementType.FLOAT), new float[] {0, 1, 2, 3, 10000, 10001, 10002, 10003}, 2, 4);
        float[] expected = {-3.4401896f, -2.4401896f, -1.4401897f, -0.44018975f};
        for (int i = 0; i < 8; i++) {
            assertEquals(expected[i % 4], y[i], 1e-5f, "element " + i);
        }
    }

    @Test
    void float16AndDoubleAreComputedInDouble() {
        Random random = new Random(3);
        float[] x = TestTensors.randomFloats(random, 3 * 300);
        try (Arena arena = Arena.ofConfined()) {
            HostTensor half = TestTensors.misaligned(arena, ElementType.FLOAT16, 3, 300);
            double[] wide = new double[x.length];
            float[] rounded = new float[x.length];
            for (int i = 0; i < x.length; i++) {
                short h = Float.floatToFloat16(x[i]);
                half.data().setAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, i, h);
                rounded[i] = Float.float16ToFloat(h);
                wide[i] = rounded[i];
            }
            // axis 0 of [3, 300]: the strided path (300 columns, more than one block of them)
            float[] expected = reference(rounded, i -> i % 300);
            HostTensor y16 = TestTensors.misaligned(arena, ElementType.FLOAT16, 3, 300);
            new SoftmaxKernel(0, false, false, ElementType.FLOAT16).compute(List.of(half), List.of(y16));
            HostTensor y64 = TestTensors.misaligned(arena, ElementType.DOUBLE, 3, 300);
            new SoftmaxKernel(0, false, false, ElementType.DOUBLE).compute(List.of(TestTensors.doubles(arena, wide, 3, 300)), List.of(y64));
            double[] doubles = TestTensors.toDoubles(y64);
            for (int i = 0; i < x.length; i++) {
                float h = Float.float16ToFloat(y16.data().getAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, i));
                assertEquals(Float.float16ToFloat(Float.floatToFloat16(expected[i])), h, "float16 element " + i + ": one rounding");
                assertEquals(expected[i], doubles[i], 1e-7, "double element " + i);
            }
        }
    }
}
