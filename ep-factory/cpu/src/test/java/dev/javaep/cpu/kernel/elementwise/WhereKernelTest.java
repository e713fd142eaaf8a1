package dev.javaep.cpu.kernel.elementwise;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Where with the condition, X and Y each broadcast along a different axis. */
class WhereKernelTest {
    private static final long[] C_SHAPE = {2, 1, 1};
    private static final long[] X_SHAPE = {1, 3, 1};
    private static final long[] Y_SHAPE = {4};
    private static final long[] CONDITION = {1, 0};

    /** The reference: out[i][j][k] = cond[i] ? x[j] : y[k]. */
    private static long[] expected(long[] x, long[] y) {
        long[] out = new long[24];
        for (int i = 0; i < 2; i++) {
            for (int j = 0; j < 3; j++) {
                for (int k = 0; k < 4; k++) {
                    out[(i * 3 + j) * 4 + k] = CONDITION[i] != 0 ? x[j] : y[k];
                }
            }
        }
        return out;
    }

    private static HostTensor run(Arena arena, ElementType type, HostTensor x, HostTensor y) {
        WhereKernel k = new WhereKernel(type);
        HostTensor c = Tensors.integers(arena, ElementType.BOOL, CONDITION, C_SHAPE);
        HostTensor out = TestTensors.misaligned(arena, type, k.outputShapes(new long[][] {C_SHAPE, X_SHAPE, Y_SHAPE})[0]);
        k.compute(List.of(c, x, y), List.of(out));
        return out;
    }

    @Test
    void everyElementSizeBroadcastThreeWays() {
        long[] x = {-1, 2, -3};
        long[] y = {10, 20, 30, 40};
        try (Arena arena = Arena.ofConfined()) {
            for (ElementType t : List.of(ElementType.INT8, ElementType.BOOL, ElementType.INT16, ElementType.INT32, ElementType.INT64)) {
                long[] xs = t == ElementType.BOOL ? new long[] {1, 0, 1} : x;
                long[] ys = t == ElementType.BOOL ? new long[] {0, 1, 0, 1} : y;
                assertArrayEquals(expected(xs, ys), Tensors.toLongs(run(arena, t, Tensors.integers(arena, t, xs, X_SHAPE),
                        Tensors.integers(arena, t, ys, Y_SHAPE))), t.toString());
            }
            for (ElementType t : List.of(ElementType.FLOAT16, ElementType.FLOAT, ElementType.DOUBLE)) {
                double[] got = Tensors.toDoubles(run(arena, t, Tensors.floats(arena, t, new double[] {-1, 2, -3}, X_SHAPE),
                        Tensors.floats(arena, t, new double[] {10, 20, 30, 40}, Y_SHAPE)));
                assertArrayEquals(java.util.Arrays.stream(expected(x, y)).asDoubleStream().toArray(), got, t.toString());
            }
        }
    }

    @Test
    void typesThatAreNotWholeElementsAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new WhereKernel(ElementType.STRING));
        assertThrows(IllegalArgumentException.class, () -> new WhereKernel(ElementType.COMPLEX128));
    }
}
