package dev.javaep.cpu.kernel.elementwise;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ClipKernelTest {
    private static final double[] X = {-3, -1, 0, 0.5, 2, 6};

    private static HostTensor run(Arena arena, ClipKernel k, HostTensor... inputs) {
        List<HostTensor> in = Arrays.asList(inputs);
        HostTensor y = TestTensors.misaligned(arena, k.elementType(), k.outputShapes(
                in.stream().map(t -> t == null ? null : t.shape()).toArray(long[][]::new))[0]);
        k.compute(in, List.of(y));
        return y;
    }

    @ParameterizedTest
    @EnumSource(value = ElementType.class, names = {"FLOAT", "FLOAT16", "DOUBLE"})
    void boundsFromInputsAnyOfWhichMayBeOmitted(ElementType type) {
        try (Arena arena = Arena.ofConfined()) {
            ClipKernel clip = new ClipKernel(type, false, 0, 0);
            HostTensor x = Tensors.floats(arena, type, X, 2, 3);
            HostTensor lo = Tensors.floats(arena, type, new double[] {-1}, new long[0]);
            HostTensor hi = Tensors.floats(arena, type, new double[] {0.5}, 1);
            assertArrayEquals(new double[] {-1, -1, 0, 0.5, 0.5, 0.5}, Tensors.toDoubles(run(arena, clip, x, lo, hi)));
            assertArrayEquals(new double[] {-1, -1, 0, 0.5, 2, 6}, Tensors.toDoubles(run(arena, clip, x, lo)));
            assertArrayEquals(new double[] {-3, -1, 0, 0.5, 0.5, 0.5}, Tensors.toDoubles(run(arena, clip, x, null, hi)));
            assertArrayEquals(X, Tensors.toDoubles(run(arena, clip, x)));
            // min above max: every element becomes max
            assertArrayEquals(new double[] {0.5, 0.5, 0.5, 0.5, 0.5, 0.5}, Tensors.toDoubles(run(arena, clip, x,
                    Tensors.floats(arena, type, new double[] {2}, 1), hi)));
        }
    }

    @Test
    void clip6TakesAttributesAndNaNStaysNaN() {
        try (Arena arena = Arena.ofConfined()) {
            ClipKernel relu6 = new ClipKernel(ElementType.FLOAT, true, 0, 6);
            double[] y = Tensors.toDoubles(run(arena, relu6, Tensors.floats(arena, ElementType.FLOAT,
                    new double[] {-1, 3, 7, Double.NaN}, 4)));
            assertArrayEquals(new double[] {0, 3, 6}, Arrays.copyOf(y, 3));
            assertTrue(Double.isNaN(y[3]));
            assertThrows(IllegalArgumentException.class, () -> relu6.outputShapes(new long[][] {{4}, {}}), "Clip-6 has no bound inputs");
        }
    }

    @Test
    void integerBoundsIncludingUnsigned64() {
        try (Arena arena = Arena.ofConfined()) {
            ClipKernel int8 = new ClipKernel(ElementType.INT8, false, 0, 0);
            HostTensor x = Tensors.integers(arena, ElementType.INT8, new long[] {-128, -5, 0, 5, 127}, 5);
            assertArrayEquals(new long[] {-3, -3, 0, 4, 4}, Tensors.toLongs(run(arena, int8, x,
                    Tensors.integers(arena, ElementType.INT8, new long[] {-3}, new long[0]),
                    Tensors.integers(arena, ElementType.INT8, new long[] {4}, new long[0]))));
            ClipKernel u64 = new ClipKernel(ElementType.UINT64, false, 0, 0);
            HostTensor u = Tensors.integers(arena, ElementType.UINT64, new long[] {-1L, 1, Long.MIN_VALUE}, 3);
            assertArrayEquals(new long[] {Long.MIN_VALUE, 2, Long.MIN_VALUE}, Tensors.toLongs(run(arena, u64, u,
                    Tensors.integers(arena, ElementType.UINT64, new long[] {2}, 1),
                    Tensors.integers(arena, ElementType.UINT64, new long[] {Long.MIN_VALUE}, 1))), "2^63 bounds above 1");
        }
    }

    @Test
    void boundsMustBeScalars() {
        ClipKernel clip = new ClipKernel(ElementType.FLOAT, false, 0, 0);
        var e = assertThrows(IllegalArgumentException.class, () -> clip.outputShapes(new long[][] {{4}, {2}}));
        assertTrue(e.getMessage().contains("min must be a scalar"), e.getMessage());
    }
}
