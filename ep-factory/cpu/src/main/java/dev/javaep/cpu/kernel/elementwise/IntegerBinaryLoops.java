package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.spi.ElementType;
import java.lang.foreign.MemorySegment;

/**
 * Row loops of {@link ElementwiseBinary} for the eight integer types, on {@code long[]} lanes ({@link Lanes}).
 * Addition, subtraction and multiplication wrap in two's complement when a lane is stored back, which is the same
 * bit pattern for signed and unsigned types; a lane holds the narrower unsigned types zero-extended, so long
 * division is exact for them and only uint64 divides unsigned. Division truncates toward zero (as in C); a zero
 * divisor throws {@link ArithmeticException} (Java's own check, not a crash).
 */
final class IntegerBinaryLoops {
    private IntegerBinaryLoops() {}

    /** {@code out[o+i] = a[ai + i*aStep] op b[bi + i*bStep]} for {@code i < n}; steps are 0 or 1. */
    static void row(ArithmeticOp op, ElementType type, MemorySegment a, long ai, long aStep, MemorySegment b, long bi,
                    long bStep, MemorySegment out, long o, long n) {
        long[] x = new long[(int) Math.min(n, Lanes.CHUNK)];
        long[] z = new long[x.length];
        for (long done = 0; done < n; done += x.length) {
            int m = (int) Math.min(x.length, n - done);
            Lanes.load(a, type, ai + done * aStep, aStep, x, m);
            Lanes.load(b, type, bi + done * bStep, bStep, z, m);
            switch (op) {
                case ADD -> { for (int i = 0; i < m; i++) x[i] += z[i]; }
                case SUB -> { for (int i = 0; i < m; i++) x[i] -= z[i]; }
                case MUL -> { for (int i = 0; i < m; i++) x[i] *= z[i]; }
                case DIV -> {
                    if (type == ElementType.UINT64) {
                        for (int i = 0; i < m; i++) x[i] = Long.divideUnsigned(x[i], z[i]);
                    } else {
                        for (int i = 0; i < m; i++) x[i] /= z[i];
                    }
                }
            }
            Lanes.store(out, type, o + done, x, m);
        }
    }
}
