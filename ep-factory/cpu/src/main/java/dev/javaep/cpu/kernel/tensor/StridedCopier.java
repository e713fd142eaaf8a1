package dev.javaep.cpu.kernel.tensor;

import dev.javaep.spi.ops.TensorOps.StridedCopy;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

/**
 * Runs a {@link StridedCopy} between host segments, moving elements of 1, 2, 4, 8 or 16 bytes without
 * looking at them: the Java reference of JavaCuda's strided-copy kernel. Rows contiguous in both views are
 * copied in bulk; segment bounds are checked on every access, so a wrong copy fails instead of writing
 * outside the tensor.
 */
final class StridedCopier {
    private StridedCopier() {}

    /**
     * Copies simplified once, each with its odometer, for a kernel plan that runs them every Run (simplifying a
     * copy and its odometer were allocations per call).
     */
    static final class Planned {
        private final StridedCopy[] copies;
        private final long[][] odometers;

        Planned(List<StridedCopy> copies) {
            this.copies = new StridedCopy[copies.size()];
            this.odometers = new long[copies.size()][];
            for (int i = 0; i < this.copies.length; i++) {
                this.copies[i] = copies.get(i).simplified();
                this.odometers[i] = new long[Math.max(0, this.copies[i].rank() - 1)];
            }
        }

        /** Runs copy {@code i}. */
        void copy(int i, MemorySegment source, MemorySegment target, int elementSize) {
            copySimplified(source, target, elementSize, copies[i], odometers[i]);
        }
    }

    /** Runs {@code c}, a copy that is {@link StridedCopy#simplified()} already, counting in {@code idx} (its contents do not matter). */
    private static void copySimplified(MemorySegment source, MemorySegment target, int elementSize, StridedCopy c, long[] idx) {
        if (c.elementCount() == 0) {
            return;
        }
        int rank = c.rank();
        if (rank == 0) {
            MemorySegment.copy(source, c.sourceOffset() * elementSize, target, c.targetOffset() * elementSize, elementSize);
            return;
        }
        long[] shape = c.shape();
        long[] ss = c.sourceStrides();
        long[] ts = c.targetStrides();
        long length = shape[rank - 1];
        long innerSource = ss[rank - 1];
        long innerTarget = ts[rank - 1];
        boolean bulk = innerSource == 1 && innerTarget == 1;
        long rows = c.elementCount() / length;
        Arrays.fill(idx, 0);
        long src = c.sourceOffset();
        long dst = c.targetOffset();
        for (long row = 0; row < rows; row++) {
            if (bulk) {
                MemorySegment.copy(source, src * elementSize, target, dst * elementSize, length * elementSize);
            } else {
                copyRow(source, src, innerSource, target, dst, innerTarget, length, elementSize);
            }
            // advance the odometer over the outer dimensions
            for (int k = rank - 2; k >= 0; k--) {
                src += ss[k];
                dst += ts[k];
                if (++idx[k] < shape[k]) {
                    break;
                }
                src -= ss[k] * shape[k];
                dst -= ts[k] * shape[k];
                idx[k] = 0;
            }
        }
    }

    private static void copyRow(MemorySegment source, long src, long sourceStride, MemorySegment target, long dst,
                                long targetStride, long length, int elementSize) {
        switch (elementSize) {
            case 1 -> {
                for (long i = 0; i < length; i++) {
                    target.set(ValueLayout.JAVA_BYTE, dst + i * targetStride, source.get(ValueLayout.JAVA_BYTE, src + i * sourceStride));
                }
            }
            case 2 -> {
                for (long i = 0; i < length; i++) {
                    target.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, dst + i * targetStride,
                            source.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, src + i * sourceStride));
                }
            }
            case 4 -> {
                for (long i = 0; i < length; i++) {
                    target.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, dst + i * targetStride,
                            source.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, src + i * sourceStride));
                }
            }
            case 8 -> {
                for (long i = 0; i < length; i++) {
                    target.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, dst + i * targetStride,
                            source.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, src + i * sourceStride));
                }
            }
            default -> {
                for (long i = 0; i < length; i++) {
                    MemorySegment.copy(source, (src + i * sourceStride) * elementSize, target,
                            (dst + i * targetStride) * elementSize, elementSize);
                }
            }
        }
    }
}
