package dev.javaep.cpu.kernel.reduction;

import dev.javaep.spi.ElementType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Runs of host-tensor elements read into and written from {@code double[]} (float32, float64, float16) or
 * {@code long[]} (integers and bool), so the reduction loops are written once per arithmetic, not per
 * element type: the type switch runs once per run of elements, never per element.
 */
final class HostElements {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE_UNALIGNED;
    private static final ValueLayout.OfShort S = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;

    private HostElements() {}

    /** Whether elements of {@code type} are read as doubles (else as longs). */
    static boolean isFloating(ElementType type) {
        return type == ElementType.FLOAT || type == ElementType.DOUBLE || type == ElementType.FLOAT16;
    }

    /** {@code dst[at..at+n) = x[from..from+n)} as doubles. */
    static void read(ElementType type, MemorySegment x, long from, double[] dst, int at, int n) {
        switch (type) {
            case FLOAT -> {
                for (int j = 0; j < n; j++) {
                    dst[at + j] = x.getAtIndex(F, from + j);
                }
            }
            case DOUBLE -> MemorySegment.copy(x, D, from * Double.BYTES, dst, at, n);
            case FLOAT16 -> {
                for (int j = 0; j < n; j++) {
                    dst[at + j] = Float.float16ToFloat(x.getAtIndex(S, from + j));
                }
            }
            default -> throw new IllegalArgumentException(type + " is not read as floating point");
        }
    }

    /** {@code y[from..from+n) = src[at..at+n)}, rounded to {@code type}. */
    static void write(ElementType type, MemorySegment y, long from, double[] src, int at, int n) {
        switch (type) {
            case FLOAT -> {
                for (int j = 0; j < n; j++) {
                    y.setAtIndex(F, from + j, (float) src[at + j]);
                }
            }
            case DOUBLE -> MemorySegment.copy(src, at, y, D, from * Double.BYTES, n);
            case FLOAT16 -> {
                for (int j = 0; j < n; j++) {
                    y.setAtIndex(S, from + j, Float.floatToFloat16((float) src[at + j]));
                }
            }
            default -> throw new IllegalArgumentException(type + " is not written as floating point");
        }
    }

    /** {@code dst[0..n) = x[from..from+n)} widened to long (unsigned types and bool zero-extended). */
    static void read(ElementType type, MemorySegment x, long from, long[] dst, int n) {
        switch (type) {
            case INT64 -> MemorySegment.copy(x, L, from * Long.BYTES, dst, 0, n);
            case INT32 -> {
                for (int j = 0; j < n; j++) {
                    dst[j] = x.getAtIndex(I, from + j);
                }
            }
            case INT8 -> {
                for (int j = 0; j < n; j++) {
                    dst[j] = x.get(ValueLayout.JAVA_BYTE, from + j);
                }
            }
            case UINT8, BOOL -> {
                for (int j = 0; j < n; j++) {
                    dst[j] = Byte.toUnsignedLong(x.get(ValueLayout.JAVA_BYTE, from + j));
                }
            }
            default -> throw new IllegalArgumentException(type + " is not read as an integer");
        }
    }

    /** {@code y[index] = value}, its low bits for the narrower types. */
    static void write(ElementType type, MemorySegment y, long index, long value) {
        switch (type) {
            case INT64 -> y.setAtIndex(L, index, value);
            case INT32 -> y.setAtIndex(I, index, (int) value);
            case INT8, UINT8, BOOL -> y.set(ValueLayout.JAVA_BYTE, index, (byte) value);
            default -> throw new IllegalArgumentException(type + " is not written as an integer");
        }
    }

    /** The smallest value of an integer type (the empty ReduceMax), and with {@code largest} the largest. */
    static long extreme(ElementType type, boolean largest) {
        return switch (type) {
            case INT64 -> largest ? Long.MAX_VALUE : Long.MIN_VALUE;
            case INT32 -> largest ? Integer.MAX_VALUE : Integer.MIN_VALUE;
            case INT8 -> largest ? Byte.MAX_VALUE : Byte.MIN_VALUE;
            case UINT8 -> largest ? 255 : 0;
            case BOOL -> largest ? 1 : 0;
            default -> throw new IllegalArgumentException(type + " is not an integer type");
        };
    }
}
