package dev.javaep.cpu.kernel.elementwise;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Row loops of {@link ElementwiseBinary} for float64. One loop per operator and operand pattern
 * (vector-vector, scalar-vector, vector-scalar) so that the JIT sees a plain counted loop with no
 * call or branch inside and can unroll and vectorize it.
 */
final class DoubleBinaryLoops {
    private static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    private DoubleBinaryLoops() {}

    /** {@code out[o+i] = a[ai + i*aStep] op b[bi + i*bStep]} for {@code i < n}; steps are 0 or 1 (not both 0 when n > 1). */
    static void row(ArithmeticOp op, MemorySegment a, long ai, long aStep, MemorySegment b, long bi, long bStep,
                    MemorySegment out, long o, long n) {
        if (aStep == 0) {
            double x = a.getAtIndex(D, ai);
            switch (op) {
                case ADD -> { for (long i = 0; i < n; i++) out.setAtIndex(D, o + i, x + b.getAtIndex(D, bi + i)); }
                case SUB -> { for (long i = 0; i < n; i++) out.setAtIndex(D, o + i, x - b.getAtIndex(D, bi + i)); }
                case MUL -> { for (long i = 0; i < n; i++) out.setAtIndex(D, o + i, x * b.getAtIndex(D, bi + i)); }
                case DIV -> { for (long i = 0; i < n; i++) out.setAtIndex(D, o + i, x / b.getAtIndex(D, bi + i)); }
            }
        } else if (bStep == 0) {
            double y = b.getAtIndex(D, bi);
            switch (op) {
                case ADD -> { for (long i = 0; i < n; i++) out.setAtIndex(D, o + i, a.getAtIndex(D, ai + i) + y); }
                case SUB -> { for (long i = 0; i < n; i++) out.setAtIndex(D, o + i, a.getAtIndex(D, ai + i) - y); }
                case MUL -> { for (long i = 0; i < n; i++) out.setAtIndex(D, o + i, a.getAtIndex(D, ai + i) * y); }
                case DIV -> { for (long i = 0; i < n; i++) out.setAtIndex(D, o + i, a.getAtIndex(D, ai + i) / y); }
            }
        } else {
            switch (op) {
                case ADD -> { for (long i = 0; i < n; i++) out.setAtIndex(D, o + i, a.getAtIndex(D, ai + i) + b.getAtIndex(D, bi + i)); }
                case SUB -> { for (long i = 0; i < n; i++) out.setAtIndex(D, o + i, a.getAtIndex(D, ai + i) - b.getAtIndex(D, bi + i)); }
                case MUL -> { for (long i = 0; i < n; i++) out.setAtIndex(D, o + i, a.getAtIndex(D, ai + i) * b.getAtIndex(D, bi + i)); }
                case DIV -> { for (long i = 0; i < n; i++) out.setAtIndex(D, o + i, a.getAtIndex(D, ai + i) / b.getAtIndex(D, bi + i)); }
            }
        }
    }
}
