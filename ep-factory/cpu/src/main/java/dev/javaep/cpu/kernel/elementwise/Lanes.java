package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.spi.ElementType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;

/**
 * Moves a run of elements between a tensor and the arrays the op loops compute on ("lanes"): a {@code double[]}
 * for the float types (float16 and float32 widen exactly; results round once to the tensor's type) and a
 * {@code long[]} for the integer types and bool (signed types sign-extend, unsigned ones zero-extend, uint64
 * keeps its bits). Each method switches on the type once and then runs a plain counted loop, so the JIT
 * compiles one tight loop per type; a step of 0 (a broadcast input) reads one element and fills.
 *
 * <p>The op loops then see only two kinds of lanes, which is what lets one loop per op serve float16, float32
 * and float64, and one per op serve eight integer types: sums, differences and products wrap when stored back
 * (the low bits are the same in every width), and only uint64 needs unsigned arithmetic on the lane.
 */
final class Lanes {
    /** Elements per chunk: three lanes of this size stay in the L1/L2 caches. */
    static final int CHUNK = 1024;
    /** Each thread's lanes of {@link #CHUNK} elements, for the kernels that load and store through one of each per call. */
    private static final ThreadLocal<double[]> DOUBLES = ThreadLocal.withInitial(() -> new double[CHUNK]);
    private static final ThreadLocal<long[]> LONGS = ThreadLocal.withInitial(() -> new long[CHUNK]);

    /**
     * This thread's double lane ({@link #CHUNK} elements), reused instead of allocated per call: a kernel may hold it
     * for its call only, and must not call another kernel that takes it meanwhile.
     */
    static double[] threadDoubles() {
        return DOUBLES.get();
    }

    /** This thread's long lane, as {@link #threadDoubles()}. */
    static long[] threadLongs() {
        return LONGS.get();
    }

    private static final ValueLayout.OfByte I8 = ValueLayout.JAVA_BYTE;
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble F64 = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private Lanes() {}

    /** Whether elements of {@code type} compute on a {@code double[]} lane (else on a {@code long[]} one). */
    static boolean isFloat(ElementType type) {
        return type == ElementType.FLOAT || type == ElementType.FLOAT16 || type == ElementType.DOUBLE;
    }

    /** Whether {@code type} is an integer type or bool (a {@code long[]} lane). */
    static boolean isInteger(ElementType type) {
        return switch (type) {
            case INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64, BOOL -> true;
            default -> false;
        };
    }

    /** {@code dst[i] = tensor[index + i*step]} for {@code i < n}, widened to double (any numeric type; uint64 unsigned). */
    static void load(MemorySegment s, ElementType type, long index, long step, double[] dst, int n) {
        if (step == 0) {
            Arrays.fill(dst, 0, n, element(s, type, index));
            return;
        }
        switch (type) {
            case FLOAT -> { for (int i = 0; i < n; i++) dst[i] = s.getAtIndex(F32, index + i); }
            case FLOAT16 -> { for (int i = 0; i < n; i++) dst[i] = Float.float16ToFloat(s.getAtIndex(I16, index + i)); }
            case DOUBLE -> { for (int i = 0; i < n; i++) dst[i] = s.getAtIndex(F64, index + i); }
            case INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, BOOL -> {
                for (int i = 0; i < n; i++) dst[i] = integer(s, type, index + i);
            }
            case UINT64 -> { for (int i = 0; i < n; i++) dst[i] = unsignedToDouble(s.getAtIndex(I64, index + i)); }
            default -> throw unsupported(type);
        }
    }

    /** {@code dst[i] = tensor[index + i*step]} for {@code i < n}, widened to long (integer types and bool). */
    static void load(MemorySegment s, ElementType type, long index, long step, long[] dst, int n) {
        if (step == 0) {
            Arrays.fill(dst, 0, n, integer(s, type, index));
            return;
        }
        switch (type) {
            case INT8 -> { for (int i = 0; i < n; i++) dst[i] = s.getAtIndex(I8, index + i); }
            case UINT8, BOOL -> { for (int i = 0; i < n; i++) dst[i] = Byte.toUnsignedLong(s.getAtIndex(I8, index + i)); }
            case INT16 -> { for (int i = 0; i < n; i++) dst[i] = s.getAtIndex(I16, index + i); }
            case UINT16 -> { for (int i = 0; i < n; i++) dst[i] = Short.toUnsignedLong(s.getAtIndex(I16, index + i)); }
            case INT32 -> { for (int i = 0; i < n; i++) dst[i] = s.getAtIndex(I32, index + i); }
            case UINT32 -> { for (int i = 0; i < n; i++) dst[i] = Integer.toUnsignedLong(s.getAtIndex(I32, index + i)); }
            case INT64, UINT64 -> { for (int i = 0; i < n; i++) dst[i] = s.getAtIndex(I64, index + i); }
            default -> throw unsupported(type);
        }
    }

    /** {@code tensor[index + i] = src[i]} rounded to the float type (float16 through float32, as ONNX Runtime does). */
    static void store(MemorySegment s, ElementType type, long index, double[] src, int n) {
        switch (type) {
            case FLOAT -> { for (int i = 0; i < n; i++) s.setAtIndex(F32, index + i, (float) src[i]); }
            case FLOAT16 -> { for (int i = 0; i < n; i++) s.setAtIndex(I16, index + i, Float.floatToFloat16((float) src[i])); }
            case DOUBLE -> { for (int i = 0; i < n; i++) s.setAtIndex(F64, index + i, src[i]); }
            default -> throw unsupported(type);
        }
    }

    /** {@code tensor[index + i] = src[i]} keeping the low bits that fit (two's complement wrap); bool stores 0 or 1. */
    static void store(MemorySegment s, ElementType type, long index, long[] src, int n) {
        switch (type) {
            case INT8, UINT8 -> { for (int i = 0; i < n; i++) s.setAtIndex(I8, index + i, (byte) src[i]); }
            case BOOL -> { for (int i = 0; i < n; i++) s.setAtIndex(I8, index + i, (byte) (src[i] != 0 ? 1 : 0)); }
            case INT16, UINT16 -> { for (int i = 0; i < n; i++) s.setAtIndex(I16, index + i, (short) src[i]); }
            case INT32, UINT32 -> { for (int i = 0; i < n; i++) s.setAtIndex(I32, index + i, (int) src[i]); }
            case INT64, UINT64 -> { for (int i = 0; i < n; i++) s.setAtIndex(I64, index + i, src[i]); }
            default -> throw unsupported(type);
        }
    }

    private static double element(MemorySegment s, ElementType type, long index) {
        return switch (type) {
            case FLOAT -> s.getAtIndex(F32, index);
            case FLOAT16 -> Float.float16ToFloat(s.getAtIndex(I16, index));
            case DOUBLE -> s.getAtIndex(F64, index);
            case UINT64 -> unsignedToDouble(s.getAtIndex(I64, index));
            default -> integer(s, type, index);
        };
    }

    private static long integer(MemorySegment s, ElementType type, long index) {
        return switch (type) {
            case INT8 -> s.getAtIndex(I8, index);
            case UINT8, BOOL -> Byte.toUnsignedLong(s.getAtIndex(I8, index));
            case INT16 -> s.getAtIndex(I16, index);
            case UINT16 -> Short.toUnsignedLong(s.getAtIndex(I16, index));
            case INT32 -> s.getAtIndex(I32, index);
            case UINT32 -> Integer.toUnsignedLong(s.getAtIndex(I32, index));
            case INT64, UINT64 -> s.getAtIndex(I64, index);
            default -> throw unsupported(type);
        };
    }

    /** The uint64 whose bits are {@code v}, as the nearest double. */
    static double unsignedToDouble(long v) {
        return v >= 0 ? v : (double) (v >>> 1 | (v & 1)) * 2.0;
    }

    /** The nearest float to the uint64 whose bits are {@code v} (rounded once, as C's conversion does). */
    static float unsignedToFloat(long v) {
        return v >= 0 ? v : (float) (v >>> 1 | (v & 1)) * 2.0f;
    }

    /** {@code d} truncated toward zero into the uint64 bits C's conversion gives for d in [0, 2^64). */
    static long doubleToUnsigned(double d) {
        return d >= 0x1p63 ? (long) (d - 0x1p63) ^ Long.MIN_VALUE : (long) d;
    }

    private static IllegalArgumentException unsupported(ElementType type) {
        return new IllegalArgumentException("no lane for element type " + type);
    }
}
