package dev.javaep.cpu.kernel.normalization;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The two float32 passes of a row normalisation with the Vector API, on ORT's off-heap tensors (the Vector API's
 * native-segment loads are intrinsics): the row's shifted sum and sum of squares in one read, then
 * {@code y = x·a + b}. Loaded only where {@link dev.javaep.cpu.kernel.VectorSupport#AVAILABLE} (see
 * {@link dev.javaep.cpu.kernel.FloatVectors} for why); {@link RowNormalizationKernel}'s double loops are the scalar twin.
 */
final class NormalizationVectors {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    /**
     * Elements per block whose lanes accumulate in float before the block's totals are added in double: 512 terms per
     * lane (with 8 lanes) keep float's rounding near 1e-5 relative, while a whole 256×256 plane in float would not.
     */
    private static final int BLOCK = 4096;

    private NormalizationVectors() {}

    /**
     * {@code sums[0] = Σ (x - shift)} and {@code sums[1] = Σ (x - shift)²} over {@code count} floats from byte
     * {@code at}: subtracting a value of the row (its first) keeps the sum of squares from cancelling when the mean is
     * large against the spread.
     */
    static void shiftedSums(MemorySegment in, long at, long count, float shift, double[] sums) {
        FloatVector shifts = FloatVector.broadcast(S, shift);
        double sum = 0;
        double squares = 0;
        long i = 0;
        while (i + L <= count) {
            long blockEnd = Math.min(count, i + BLOCK) - L;
            FloatVector s = FloatVector.zero(S);
            FloatVector q = FloatVector.zero(S);
            for (; i <= blockEnd; i += L) {
                FloatVector d = FloatVector.fromMemorySegment(S, in, at + i * Float.BYTES, ORDER).sub(shifts);
                s = s.add(d);
                q = d.fma(d, q);
            }
            sum += s.reduceLanes(VectorOperators.ADD);
            squares += q.reduceLanes(VectorOperators.ADD);
        }
        for (; i < count; i++) {
            double d = in.get(F, at + i * Float.BYTES) - shift;
            sum += d;
            squares += d * d;
        }
        sums[0] = sum;
        sums[1] = squares;
    }

    /** {@code y = x·a + b} over {@code count} floats from byte {@code at} of both segments. */
    static void scaleShift(MemorySegment in, MemorySegment out, long at, long count, float a, float b) {
        FloatVector as = FloatVector.broadcast(S, a);
        FloatVector bs = FloatVector.broadcast(S, b);
        long i = 0;
        for (; i + L <= count; i += L) {
            long o = at + i * Float.BYTES;
            FloatVector.fromMemorySegment(S, in, o, ORDER).fma(as, bs).intoMemorySegment(out, o, ORDER);
        }
        for (; i < count; i++) {
            long o = at + i * Float.BYTES;
            out.set(F, o, Math.fma(in.get(F, o), a, b));
        }
    }
}
