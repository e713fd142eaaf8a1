package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaSource;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.spi.ops.TensorOps.StridedCopy;
import java.util.Arrays;
import java.util.concurrent.atomic.AtomicReferenceArray;

/** Queues the family's strided copies: a plain memcpy when both views are contiguous, else the strided-copy kernel. */
final class Launches {
    /** The kernels take shapes and strides as {@code Dims}: 8 dimensions at most per launch. */
    static final int MAX_RANK = 8;

    /**
     * The strided-copy kernel by element size in bytes (1 to 16), built once: a launch looks its function up by the
     * same source object and builds no source text (these copies are static helpers of several nodes, no node's slot).
     */
    private static final AtomicReferenceArray<CudaSource> STRIDED_COPIES = new AtomicReferenceArray<>(17);

    private Launches() {}

    private static CudaSource stridedCopySource(int elementSize) {
        CudaSource source = elementSize < STRIDED_COPIES.length() ? STRIDED_COPIES.get(elementSize) : null;
        if (source == null) {
            source = TensorSources.mover("javaep_strided_copy", TensorSources.STRIDED_COPY, elementSize);
            STRIDED_COPIES.compareAndSet(elementSize, null, source); // a race builds two equal sources; either serves
        }
        return source;
    }

    /**
     * Queues {@code copy} from the tensor at {@code source} to the one at {@code target} (device addresses of
     * element 0), elements of {@code elementSize} bytes. A copy of more than 8 dimensions after
     * {@link StridedCopy#simplified} is one launch per index of its leading dimensions.
     */
    static void stridedCopy(CudaKernelLibrary kernels, long stream, long source, long target, int elementSize, StridedCopy copy) {
        StridedCopy c = copy.simplified();
        long n = c.elementCount();
        if (n == 0) {
            return;
        }
        long from = source + c.sourceOffset() * elementSize;
        long to = target + c.targetOffset() * elementSize;
        int rank = c.rank();
        if (rank == 0 || rank == 1 && c.sourceStrides()[0] == 1 && c.targetStrides()[0] == 1) {
            kernels.driver().memcpyDtoDAsync(to, from, n * elementSize, stream);
            return;
        }
        if (rank > MAX_RANK) {
            int lead = rank - MAX_RANK;
            long[] shape = c.shape();
            long[] tail = Arrays.copyOfRange(shape, lead, rank);
            long[] tailSource = Arrays.copyOfRange(c.sourceStrides(), lead, rank);
            long[] tailTarget = Arrays.copyOfRange(c.targetStrides(), lead, rank);
            long[] idx = new long[lead];
            long outer = 1;
            for (int k = 0; k < lead; k++) {
                outer *= shape[k];
            }
            for (long o = 0; o < outer; o++) {
                long s = 0;
                long t = 0;
                for (int k = 0; k < lead; k++) {
                    s += idx[k] * c.sourceStrides()[k];
                    t += idx[k] * c.targetStrides()[k];
                }
                stridedCopy(kernels, stream, from + s * elementSize, to + t * elementSize, elementSize,
                        new StridedCopy(tail, tailSource, 0, tailTarget, 0));
                for (int k = lead - 1; k >= 0 && ++idx[k] == shape[k]; k--) {
                    idx[k] = 0;
                }
            }
            return;
        }
        kernels.launch(stridedCopySource(elementSize),
                kernels.linear(n), 0, stream, KernelArguments.begin().u64(to).u64(from).longs(c.shape(), MAX_RANK)
                        .longs(c.sourceStrides(), MAX_RANK).longs(c.targetStrides(), MAX_RANK).i32(rank).i64(n));
    }
}
