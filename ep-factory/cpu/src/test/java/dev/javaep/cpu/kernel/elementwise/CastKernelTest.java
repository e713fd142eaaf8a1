package dev.javaep.cpu.kernel.elementwise;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Cast against C++'s conversions (what ONNX Runtime's CPU kernel does) for in-range values. */
class CastKernelTest {
    private static final ElementType F16 = ElementType.FLOAT16;
    private static final ElementType F32 = ElementType.FLOAT;
    private static final ElementType F64 = ElementType.DOUBLE;

    private static HostTensor cast(Arena arena, HostTensor x, ElementType to) {
        CastKernel k = new CastKernel(x.elementType(), to);
        HostTensor y = TestTensors.misaligned(arena, to, x.shape());
        k.compute(List.of(x), List.of(y));
        return y;
    }

    private static long[] castFloats(ElementType from, double[] x, ElementType to) {
        try (Arena arena = Arena.ofConfined()) {
            return Tensors.toLongs(cast(arena, Tensors.floats(arena, from, x, x.length), to));
        }
    }

    private static double[] castIntegers(ElementType from, long[] x, ElementType to) {
        try (Arena arena = Arena.ofConfined()) {
            return Tensors.toDoubles(cast(arena, Tensors.integers(arena, from, x, x.length), to));
        }
    }

    @Test
    void floatsToIntegersTruncateTowardZero() {
        double[] x = {-2.75, -0.5, 0, 0.5, 1.5, 100.75};
        long[] truncated = {-2, 0, 0, 0, 1, 100};
        for (ElementType from : List.of(F16, F32, F64)) {
            for (ElementType to : List.of(ElementType.INT8, ElementType.INT16, ElementType.INT32, ElementType.INT64)) {
                assertArrayEquals(truncated, castFloats(from, x, to), from + " -> " + to);
            }
            assertArrayEquals(new long[] {0, 0, 1, 254}, castFloats(from, new double[] {0, 0.5, 1.5, 254.75}, ElementType.UINT8));
        }
        assertArrayEquals(new long[] {Long.parseUnsignedLong("10000000000000000000"), 3},
                castFloats(F64, new double[] {1e19, 3.9}, ElementType.UINT64), "at and above 2^63");
    }

    @Test
    void anythingToBoolIsNonZero() {
        assertArrayEquals(new long[] {0, 0, 1, 1, 1}, castFloats(F32, new double[] {0, -0.0, 0.1, Double.NaN, -3}, ElementType.BOOL));
        assertArrayEquals(new long[] {0, 1, 1}, castFloats(F16, new double[] {0, 1e-7, 65504}, ElementType.BOOL), "1e-7 is a float16 subnormal");
        try (Arena arena = Arena.ofConfined()) {
            assertArrayEquals(new long[] {0, 1, 1, 1}, Tensors.toLongs(cast(arena,
                    Tensors.integers(arena, ElementType.INT64, new long[] {0, 5, -1, 1L << 40}, 4), ElementType.BOOL)));
            assertArrayEquals(new long[] {0, 1}, Tensors.toLongs(cast(arena,
                    Tensors.integers(arena, ElementType.UINT8, new long[] {0, 256 + 2}, 2), ElementType.BOOL)));
        }
    }

    @Test
    void boolsAreZeroOrOne() {
        assertArrayEquals(new double[] {0, 1, 1}, castIntegers(ElementType.BOOL, new long[] {0, 1, 1}, F16));
        assertArrayEquals(new double[] {0, 1}, castIntegers(ElementType.BOOL, new long[] {0, 1}, F64));
        try (Arena arena = Arena.ofConfined()) {
            assertArrayEquals(new long[] {1, 0}, Tensors.toLongs(cast(arena,
                    Tensors.integers(arena, ElementType.BOOL, new long[] {1, 0}, 2), ElementType.INT64)));
        }
    }

    @Test
    void floatsNarrowToNearestEven() {
        try (Arena arena = Arena.ofConfined()) {
            double third = 1.0 / 3;
            double[] toHalf = Tensors.toDoubles(cast(arena, Tensors.floats(arena, F32, new double[] {third, 65520, -1e-8, 2049}, 4), F16));
            assertArrayEquals(new double[] {Float.float16ToFloat(Float.floatToFloat16((float) third)), Double.POSITIVE_INFINITY,
                    -0.0, 2048}, toHalf, "65520 rounds up to infinity, 2049 to even");
            double[] fromDouble = Tensors.toDoubles(cast(arena, Tensors.floats(arena, F64, new double[] {third, 1e300}, 2), F32));
            assertArrayEquals(new double[] {(float) third, Double.POSITIVE_INFINITY}, fromDouble);
            double[] widened = Tensors.toDoubles(cast(arena, Tensors.floats(arena, F16, new double[] {0.099975586}, 1), F64));
            assertArrayEquals(new double[] {Float.float16ToFloat(Float.floatToFloat16(0.099975586f))}, widened);
        }
    }

    @Test
    void integersRoundOnceToFloat() {
        long v = (1L << 60) + (1L << 36) + 1; // through double it would round to the tie 2^60 + 2^36, then to even 2^60
        assertArrayEquals(new double[] {(double) ((1L << 60) + (1L << 37))}, castIntegers(ElementType.INT64, new long[] {v}, F32));
        assertArrayEquals(new double[] {0x1p64, 0x1p64}, castIntegers(ElementType.UINT64, new long[] {-1L, -1L}, F32), "uint64 max");
        assertArrayEquals(new double[] {0x1p64}, castIntegers(ElementType.UINT64, new long[] {-1L}, F64));
        assertArrayEquals(new double[] {-7, 65504, Double.POSITIVE_INFINITY}, castIntegers(ElementType.INT32, new long[] {-7, 65504, 70000}, F16));
    }

    @Test
    void integersNarrowToTheirLowBits() {
        try (Arena arena = Arena.ofConfined()) {
            HostTensor x = Tensors.integers(arena, ElementType.INT32, new long[] {300, -129, -1, 127}, 4);
            assertArrayEquals(new long[] {44, 127, -1, 127}, Tensors.toLongs(cast(arena, x, ElementType.INT8)));
            assertArrayEquals(new long[] {44, 127, 255, 127}, Tensors.toLongs(cast(arena, x, ElementType.UINT8)));
            assertArrayEquals(new long[] {300, -129, -1, 127}, Tensors.toLongs(cast(arena, x, ElementType.INT64)));
            assertArrayEquals(new long[] {300, -129, -1, 127}, Tensors.toLongs(cast(arena, x, ElementType.INT32)), "same type copies");
            HostTensor u = Tensors.integers(arena, ElementType.UINT8, new long[] {255, 0}, 2);
            assertArrayEquals(new long[] {255, 0}, Tensors.toLongs(cast(arena, u, ElementType.INT32)), "uint8 zero-extends");
        }
    }

    @Test
    void typesWithoutAConversionAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new CastKernel(ElementType.STRING, F32));
        assertThrows(IllegalArgumentException.class, () -> new CastKernel(F32, ElementType.BFLOAT16));
    }
}
