package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.spi.ElementType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Row loops of {@link ElementwiseBinary} for the eight integer types. Addition, subtraction and
 * multiplication wrap in two's complement, which is the same bit pattern for signed and unsigned
 * types, so only division needs to know the signedness. Division truncates toward zero (as in C);
 * a zero divisor throws {@link ArithmeticException} (Java's own check, not a crash).
 */
final class IntegerBinaryLoops {
    private static final ValueLayout.OfByte I8 = ValueLayout.JAVA_BYTE;
    private static final ValueLayout.OfShort I16 = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt I32 = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong I64 = ValueLayout.JAVA_LONG_UNALIGNED;

    private IntegerBinaryLoops() {}

    static boolean isUnsigned(ElementType type) {
        return switch (type) {
            case UINT8, UINT16, UINT32, UINT64 -> true;
            default -> false;
        };
    }

    /** {@code out[o+i] = a[ai + i*aStep] op b[bi + i*bStep]} for {@code i < n}; steps are 0 or 1. */
    static void row(ArithmeticOp op, ElementType type, MemorySegment a, long ai, long aStep, MemorySegment b, long bi,
                    long bStep, MemorySegment out, long o, long n) {
        boolean unsigned = isUnsigned(type);
        switch (type.byteSize()) {
            case 1 -> bytes(op, unsigned, a, ai, aStep, b, bi, bStep, out, o, n);
            case 2 -> shorts(op, unsigned, a, ai, aStep, b, bi, bStep, out, o, n);
            case 4 -> ints(op, unsigned, a, ai, aStep, b, bi, bStep, out, o, n);
            case 8 -> longs(op, unsigned, a, ai, aStep, b, bi, bStep, out, o, n);
            default -> throw new IllegalArgumentException("not an integer element type: " + type);
        }
    }

    private static void bytes(ArithmeticOp op, boolean unsigned, MemorySegment a, long ai, long aStep,
                              MemorySegment b, long bi, long bStep, MemorySegment out, long o, long n) {
        switch (op) {
            case ADD -> { for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I8, o + i, (byte) (a.getAtIndex(I8, x) + b.getAtIndex(I8, y))); }
            case SUB -> { for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I8, o + i, (byte) (a.getAtIndex(I8, x) - b.getAtIndex(I8, y))); }
            case MUL -> { for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I8, o + i, (byte) (a.getAtIndex(I8, x) * b.getAtIndex(I8, y))); }
            case DIV -> {
                if (unsigned) {
                    for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I8, o + i, (byte) (Byte.toUnsignedInt(a.getAtIndex(I8, x)) / Byte.toUnsignedInt(b.getAtIndex(I8, y))));
                } else {
                    for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I8, o + i, (byte) (a.getAtIndex(I8, x) / b.getAtIndex(I8, y)));
                }
            }
        }
    }

    private static void shorts(ArithmeticOp op, boolean unsigned, MemorySegment a, long ai, long aStep,
                               MemorySegment b, long bi, long bStep, MemorySegment out, long o, long n) {
        switch (op) {
            case ADD -> { for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I16, o + i, (short) (a.getAtIndex(I16, x) + b.getAtIndex(I16, y))); }
            case SUB -> { for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I16, o + i, (short) (a.getAtIndex(I16, x) - b.getAtIndex(I16, y))); }
            case MUL -> { for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I16, o + i, (short) (a.getAtIndex(I16, x) * b.getAtIndex(I16, y))); }
            case DIV -> {
                if (unsigned) {
                    for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I16, o + i, (short) (Short.toUnsignedInt(a.getAtIndex(I16, x)) / Short.toUnsignedInt(b.getAtIndex(I16, y))));
                } else {
                    for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I16, o + i, (short) (a.getAtIndex(I16, x) / b.getAtIndex(I16, y)));
                }
            }
        }
    }

    private static void ints(ArithmeticOp op, boolean unsigned, MemorySegment a, long ai, long aStep,
                             MemorySegment b, long bi, long bStep, MemorySegment out, long o, long n) {
        switch (op) {
            case ADD -> { for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I32, o + i, a.getAtIndex(I32, x) + b.getAtIndex(I32, y)); }
            case SUB -> { for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I32, o + i, a.getAtIndex(I32, x) - b.getAtIndex(I32, y)); }
            case MUL -> { for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I32, o + i, a.getAtIndex(I32, x) * b.getAtIndex(I32, y)); }
            case DIV -> {
                if (unsigned) {
                    for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I32, o + i, Integer.divideUnsigned(a.getAtIndex(I32, x), b.getAtIndex(I32, y)));
                } else {
                    for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I32, o + i, a.getAtIndex(I32, x) / b.getAtIndex(I32, y));
                }
            }
        }
    }

    private static void longs(ArithmeticOp op, boolean unsigned, MemorySegment a, long ai, long aStep,
                              MemorySegment b, long bi, long bStep, MemorySegment out, long o, long n) {
        switch (op) {
            case ADD -> { for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I64, o + i, a.getAtIndex(I64, x) + b.getAtIndex(I64, y)); }
            case SUB -> { for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I64, o + i, a.getAtIndex(I64, x) - b.getAtIndex(I64, y)); }
            case MUL -> { for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I64, o + i, a.getAtIndex(I64, x) * b.getAtIndex(I64, y)); }
            case DIV -> {
                if (unsigned) {
                    for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I64, o + i, Long.divideUnsigned(a.getAtIndex(I64, x), b.getAtIndex(I64, y)));
                } else {
                    for (long i = 0, x = ai, y = bi; i < n; i++, x += aStep, y += bStep) out.setAtIndex(I64, o + i, a.getAtIndex(I64, x) / b.getAtIndex(I64, y));
                }
            }
        }
    }
}
