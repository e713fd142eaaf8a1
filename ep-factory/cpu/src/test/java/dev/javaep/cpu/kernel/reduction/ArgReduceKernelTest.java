package dev.javaep.cpu.kernel.reduction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ArgReduceKernelTest {

    private static long[] run(ArgReduceKernel k, float[] x, long... shape) {
        return TestTensors.runOnFloats(k, ElementType.INT64, TestTensors::toIntegers, x, shape);
    }

    private static ArgReduceKernel argmax(long axis, boolean keepdims, boolean last) {
        return new ArgReduceKernel(true, axis, keepdims, last, ElementType.FLOAT);
    }

    @Test
    void onnxExamples() {
        float[] x = {2, 1, 3, 10};
        // test_argmax_default_axis_example: axis 0 of [[2, 1], [3, 10]]
        assertArrayEquals(new long[] {1, 1}, run(argmax(0, true, false), x, 2, 2));
        assertArrayEquals(new long[] {0, 1}, run(argmax(1, false, false), x, 2, 2));
        assertArrayEquals(new long[] {1, 0}, run(new ArgReduceKernel(false, -1, true, false, ElementType.FLOAT), x, 2, 2));
        assertArrayEquals(new long[] {2, 1}, argmax(1, true, false).outputShapes(new long[][] {{2, 2}})[0]);
        assertArrayEquals(new long[] {2}, argmax(-1, false, false).outputShapes(new long[][] {{2, 2}})[0]);
    }

    @Test
    void tiesPickTheFirstUnlessSelectLastIndex() {
        float[] x = {3, 1, 3, 10, 10, 1};
        assertArrayEquals(new long[] {0, 0}, run(argmax(1, false, false), x, 2, 3));
        assertArrayEquals(new long[] {2, 1}, run(argmax(1, false, true), x, 2, 3));
        float[] y = {5, 1, 1, 7};
        assertArrayEquals(new long[] {2}, run(new ArgReduceKernel(false, 0, false, true, ElementType.FLOAT), y, 4));
        assertArrayEquals(new long[] {1}, run(new ArgReduceKernel(false, 0, false, false, ElementType.FLOAT), y, 4));
    }

    @Test
    void middleAxisMatchesTheDefinition() {
        Random random = new Random(9);
        float[] x = TestTensors.randomFloats(random, 2 * 5 * 3);
        long[] got = run(argmax(1, false, false), x, 2, 5, 3);
        for (int o = 0; o < 2; o++) {
            for (int s = 0; s < 3; s++) {
                int best = 0;
                for (int r = 1; r < 5; r++) {
                    if (x[(o * 5 + r) * 3 + s] > x[(o * 5 + best) * 3 + s]) {
                        best = r;
                    }
                }
                assertArrayEquals(new long[] {best}, new long[] {got[o * 3 + s]}, "output " + o + "," + s);
            }
        }
    }

    @Test
    void integersAndFloat16() {
        try (Arena arena = Arena.ofConfined()) {
            HostTensor bytes = TestTensors.integers(arena, ElementType.UINT8, new long[] {3, 200, 7, 100}, 2, 2);
            HostTensor out = TestTensors.misaligned(arena, ElementType.INT64, 2);
            new ArgReduceKernel(true, 0, false, false, ElementType.UINT8).compute(List.of(bytes), List.of(out));
            assertArrayEquals(new long[] {1, 0}, TestTensors.toIntegers(out), "uint8 compares unsigned");

            HostTensor half = TestTensors.misaligned(arena, ElementType.FLOAT16, 3);
            float[] v = {0.5f, -2f, 1.5f};
            for (int i = 0; i < 3; i++) {
                half.data().setAtIndex(java.lang.foreign.ValueLayout.JAVA_SHORT_UNALIGNED, i, Float.floatToFloat16(v[i]));
            }
            HostTensor one = TestTensors.misaligned(arena, ElementType.INT64, 1);
            new ArgReduceKernel(false, 0, true, false, ElementType.FLOAT16).compute(List.of(half), List.of(one));
            assertArrayEquals(new long[] {1}, TestTensors.toIntegers(one));
        }
    }

    @Test
    void anEmptyAxisOrAScalarIsRejected() {
        assertThrows(IllegalArgumentException.class, () -> run(argmax(1, true, false), new float[0], 2, 0));
        assertThrows(IllegalArgumentException.class, () -> argmax(0, true, false).outputShapes(new long[][] {{}}));
        assertThrows(IllegalArgumentException.class, () -> argmax(2, true, false).outputShapes(new long[][] {{2, 2}}));
    }
}
