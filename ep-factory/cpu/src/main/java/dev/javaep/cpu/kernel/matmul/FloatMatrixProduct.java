package dev.javaep.cpu.kernel.matmul;

import dev.javaep.cpu.kernel.FloatVectors;
import dev.javaep.cpu.kernel.KernelThreads;
import dev.javaep.cpu.kernel.VectorSupport;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * {@code Y[M,N] += alpha * op(A)[M,K] * op(B)[K,N]} for row-major float32 matrices in segments,
 * where {@code op} optionally transposes. Shared by {@link MatMulKernel} and {@link GemmKernel}.
 *
 * <p>Loop order i-k-j over blocks of B: a {@link #BLOCK_K}×{@link #BLOCK_N} block of op(B) is
 * copied into a {@code float[]} (which also undoes a transpose, so the hot loop never sees one),
 * then the rows of A stream across that block, four at a time, while slices of the output rows are
 * accumulated in {@code float[]}s. The innermost loop {@code acc[j] += a * block[p*nb + j]} is
 * unit-stride over heap arrays, which the JIT vectorizes, and the block (128 KiB) stays in L2 for
 * all M rows.
 *
 * <p>Where the JVM has the Vector API ({@link VectorSupport#AVAILABLE}) the four rows of A are packed (scaled by
 * alpha) next to the block and {@link FloatVectors#fourRows} keeps a 4 × 2-vector tile of Y in registers across the
 * block's depth instead: one load of B per four fused multiply-adds and no accumulator traffic through memory.
 *
 * <p>Products of at least {@link #PARALLEL_MULTIPLY_ADDS} multiply-adds are split across the Run's
 * {@link KernelThreads} pool by blocks of columns of Y (or of rows, when Y has too few columns for every thread); smaller
 * ones run on the calling thread, so a small model's Run pays no hand-off. Each thread packs into its own scratch
 * instance ({@link #SCRATCH}, full block size) and hands the pool its own reusable task body ({@code Split}), so a
 * product allocates nothing once a thread has run one. Public for
 * the convolution kernels ({@code cpu.kernel.conv}), which lower ConvTranspose to it (Conv has its own register tile
 * over pre-packed weights, {@code ConvPanels}).
 */
public final class FloatMatrixProduct {
    static final int BLOCK_K = 128;
    static final int BLOCK_N = 256;
    /** Output rows computed together (see {@link #fourRows}). */
    private static final int ROWS = 4;
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;

    /** Multiply-adds from which a product is split across the kernel threads (a hand-off costs a few µs). */
    static final long PARALLEL_MULTIPLY_ADDS = 1L << 18;
    /** Columns of a column split are a multiple of this (two AVX-512 vectors), so the vector tile stays whole. */
    private static final int COLUMN_GRAIN = 32;
    /** Each thread's packing and accumulator arrays, at full block size. */
    private static final ThreadLocal<FloatMatrixProduct> SCRATCH = ThreadLocal.withInitial(FloatMatrixProduct::new);

    private final float[] block = new float[BLOCK_K * BLOCK_N];
    private final float[][] acc = new float[ROWS][BLOCK_N];
    /** Four rows of op(A) over one block's depth, interleaved ({@code [p*4 + r]}) and scaled, for the vector kernel. */
    private final float[] panel = new float[ROWS * BLOCK_K];
    /** One stored row of A over one block's depth, on its way into {@link #panel}. */
    private final float[] aRow = new float[BLOCK_K];

    private FloatMatrixProduct() {}

    /**
     * Accumulates into {@code y}. Offsets are in elements. With {@code transA} A is stored as
     * [K,M], with {@code transB} B is stored as [N,K]; Y is always [M,N].
     */
    public static void multiplyAccumulate(MemorySegment a, long aOffset, boolean transA,
                                          MemorySegment b, long bOffset, boolean transB,
                                          MemorySegment y, long yOffset,
                                          long m, long k, long n, float alpha) {
        multiplyAccumulate(a, aOffset, transA, b, transB ? null : wholeArray(b), bOffset, transB, y, yOffset, m, k, n, alpha);
    }

    /** The product, with {@code bArray} the float[] B is the whole of (then {@code b} is not read), or null. */
    private static void multiplyAccumulate(MemorySegment a, long aOffset, boolean transA, MemorySegment b, float[] bArray,
                                           long bOffset, boolean transB, MemorySegment y, long yOffset,
                                           long m, long k, long n, float alpha) {
        KernelThreads pool = KernelThreads.current();
        int threads = pool.threads();
        if (threads > 1 && m * k * n >= PARALLEL_MULTIPLY_ADDS) {
            // Columns first: each task then packs only its own blocks of B (a row split packs all of B per task).
            long columnsPerTask = Math.max(2 * COLUMN_GRAIN, Math.ceilDiv(Math.ceilDiv(n, pool.tasks()), COLUMN_GRAIN) * COLUMN_GRAIN);
            int columnTasks = Math.toIntExact(Math.ceilDiv(n, columnsPerTask));
            if (columnTasks >= threads) {
                Split.of().run(pool, columnTasks, true, columnsPerTask, a, aOffset, transA, b, bArray, bOffset, transB, y, yOffset,
                        m, k, n, alpha);
                return;
            }
            long rowsPerTask = Math.max(2 * ROWS, Math.ceilDiv(Math.ceilDiv(m, pool.tasks()), ROWS) * ROWS);
            int rowTasks = Math.toIntExact(Math.ceilDiv(m, rowsPerTask));
            if (rowTasks >= 2) {
                Split.of().run(pool, rowTasks, false, rowsPerTask, a, aOffset, transA, b, bArray, bOffset, transB, y, yOffset,
                        m, k, n, alpha);
                return;
            }
        }
        SCRATCH.get().multiplyAccumulate(a, aOffset, transA, b, bArray, bOffset, transB, y, yOffset, m, k, n, alpha, 0, m, 0, n);
    }

    /**
     * A product split across the kernel threads by blocks of columns or rows, as the pool's task body: one per calling
     * thread, reused (a lambda capturing the operands was an allocation per product).
     */
    private static final class Split implements KernelThreads.Body {
        private static final ThreadLocal<Split> OF_THREAD = ThreadLocal.withInitial(Split::new);
        private boolean busy;
        private boolean byColumns;
        private long perTask;
        private MemorySegment a;
        private long aOffset;
        private boolean transA;
        private MemorySegment b;
        private float[] bArray;
        private long bOffset;
        private boolean transB;
        private MemorySegment y;
        private long yOffset;
        private long m;
        private long k;
        private long n;
        private float alpha;

        /** This thread's split, or a new one while it is in use (a product started from inside a task of this thread). */
        static Split of() {
            Split split = OF_THREAD.get();
            return split.busy ? new Split() : split;
        }

        void run(KernelThreads pool, int tasks, boolean byColumns, long perTask, MemorySegment a, long aOffset, boolean transA,
                 MemorySegment b, float[] bArray, long bOffset, boolean transB, MemorySegment y, long yOffset, long m, long k, long n,
                 float alpha) {
            this.busy = true;
            this.byColumns = byColumns;
            this.perTask = perTask;
            this.a = a;
            this.aOffset = aOffset;
            this.transA = transA;
            this.b = b;
            this.bArray = bArray;
            this.bOffset = bOffset;
            this.transB = transB;
            this.y = y;
            this.yOffset = yOffset;
            this.m = m;
            this.k = k;
            this.n = n;
            this.alpha = alpha;
            try {
                pool.parallelFor(tasks, this);
            } finally {
                this.a = this.b = this.y = null; // the Run's memory is not kept reachable from the thread
                this.bArray = null;
                this.busy = false;
            }
        }

        @Override
        public void run(int t) {
            long first = t * perTask;
            if (byColumns) {
                SCRATCH.get().multiplyAccumulate(a, aOffset, transA, b, bArray, bOffset, transB, y, yOffset, m, k, n, alpha,
                        0, m, first, Math.min(n, first + perTask));
            } else {
                SCRATCH.get().multiplyAccumulate(a, aOffset, transA, b, bArray, bOffset, transB, y, yOffset, m, k, n, alpha,
                        first, Math.min(m, first + perTask), 0, n);
            }
        }
    }

    /** Rows {@code [iStart, iEnd)} and columns {@code [jStart, jEnd)} of the product on this thread. */
    private void multiplyAccumulate(MemorySegment a, long aOffset, boolean transA,
                                    MemorySegment b, float[] bArray, long bOffset, boolean transB,
                                    MemorySegment y, long yOffset,
                                    long m, long k, long n, float alpha, long iStart, long iEnd, long jStart, long jEnd) {
        // Element (i, p) of op(A) is at aOffset + i * aRowStep + p * aColStep.
        long aRowStep = transA ? 1 : k;
        long aColStep = transA ? m : 1;
        for (long j0 = jStart; j0 < jEnd; j0 += BLOCK_N) {
            int nb = (int) Math.min(BLOCK_N, jEnd - j0);
            for (long p0 = 0; p0 < k; p0 += BLOCK_K) {
                int kb = (int) Math.min(BLOCK_K, k - p0);
                if (bArray != null) { // a heap B (ConvTranspose's input copy): array copies, no segment checks
                    for (int p = 0; p < kb; p++) {
                        System.arraycopy(bArray, Math.toIntExact(bOffset + (p0 + p) * n + j0), block, p * nb, nb);
                    }
                } else {
                    packB(b, bOffset, transB, k, n, p0, kb, j0, nb);
                }
                long i = iStart;
                if (VectorSupport.AVAILABLE) {
                    for (; i + ROWS <= iEnd; i += ROWS) {
                        packA(a, aOffset + i * aRowStep + p0 * aColStep, aRowStep, aColStep, ROWS, kb, alpha);
                        vectorFourRows(y, yOffset + i * n + j0, n, kb, nb);
                    }
                    for (; i < iEnd; i++) {
                        packA(a, aOffset + i * aRowStep + p0 * aColStep, aRowStep, aColStep, 1, kb, alpha);
                        long yIndex = yOffset + i * n + j0;
                        MemorySegment.copy(y, F, yIndex * Float.BYTES, acc[0], 0, nb);
                        FloatVectors.oneRow(panel, block, kb, nb, acc[0]);
                        MemorySegment.copy(acc[0], 0, y, F, yIndex * Float.BYTES, nb);
                    }
                    continue;
                }
                for (; i + ROWS <= iEnd; i += ROWS) {
                    fourRows(a, aOffset + i * aRowStep + p0 * aColStep, aRowStep, aColStep, y, yOffset + i * n + j0, n, kb, nb, alpha);
                }
                for (; i < iEnd; i++) {
                    oneRow(a, aOffset + i * aRowStep + p0 * aColStep, aColStep, y, yOffset + i * n + j0, kb, nb, alpha);
                }
            }
        }
    }

    /**
     * Four rows of Y at once, so each element of the packed block is loaded once for four
     * multiply-adds instead of one (the loop is bound by loads, not arithmetic).
     */
    private void fourRows(MemorySegment a, long aIndex, long aRowStep, long aColStep,
                          MemorySegment y, long yIndex, long n, int kb, int nb, float alpha) {
        float[] c0 = acc[0];
        float[] c1 = acc[1];
        float[] c2 = acc[2];
        float[] c3 = acc[3];
        MemorySegment.copy(y, F, yIndex * Float.BYTES, c0, 0, nb);
        MemorySegment.copy(y, F, (yIndex + n) * Float.BYTES, c1, 0, nb);
        MemorySegment.copy(y, F, (yIndex + 2 * n) * Float.BYTES, c2, 0, nb);
        MemorySegment.copy(y, F, (yIndex + 3 * n) * Float.BYTES, c3, 0, nb);
        for (int p = 0; p < kb; p++, aIndex += aColStep) {
            float a0 = alpha * a.getAtIndex(F, aIndex);
            float a1 = alpha * a.getAtIndex(F, aIndex + aRowStep);
            float a2 = alpha * a.getAtIndex(F, aIndex + 2 * aRowStep);
            float a3 = alpha * a.getAtIndex(F, aIndex + 3 * aRowStep);
            int base = p * nb;
            for (int j = 0; j < nb; j++) {
                float bv = block[base + j];
                c0[j] += a0 * bv;
                c1[j] += a1 * bv;
                c2[j] += a2 * bv;
                c3[j] += a3 * bv;
            }
        }
        MemorySegment.copy(c0, 0, y, F, yIndex * Float.BYTES, nb);
        MemorySegment.copy(c1, 0, y, F, (yIndex + n) * Float.BYTES, nb);
        MemorySegment.copy(c2, 0, y, F, (yIndex + 2 * n) * Float.BYTES, nb);
        MemorySegment.copy(c3, 0, y, F, (yIndex + 3 * n) * Float.BYTES, nb);
    }

    /** One row of Y, for the rows left over after groups of four. */
    private void oneRow(MemorySegment a, long aIndex, long aColStep, MemorySegment y, long yIndex, int kb, int nb, float alpha) {
        float[] c0 = acc[0];
        MemorySegment.copy(y, F, yIndex * Float.BYTES, c0, 0, nb);
        for (int p = 0; p < kb; p++, aIndex += aColStep) {
            float a0 = alpha * a.getAtIndex(F, aIndex);
            int base = p * nb;
            for (int j = 0; j < nb; j++) {
                c0[j] += a0 * block[base + j];
            }
        }
        MemorySegment.copy(c0, 0, y, F, yIndex * Float.BYTES, nb);
    }

    /** Four rows of Y through {@link FloatVectors#fourRows}, via the accumulator arrays. */
    private void vectorFourRows(MemorySegment y, long yIndex, long n, int kb, int nb) {
        for (int r = 0; r < ROWS; r++) {
            MemorySegment.copy(y, F, (yIndex + r * n) * Float.BYTES, acc[r], 0, nb);
        }
        FloatVectors.fourRows(panel, block, kb, nb, acc[0], acc[1], acc[2], acc[3]);
        for (int r = 0; r < ROWS; r++) {
            MemorySegment.copy(acc[r], 0, y, F, (yIndex + r * n) * Float.BYTES, nb);
        }
    }

    /** {@code panel[p*rows + r] = alpha * op(A)[i + r, p0 + p]} for {@code r < rows}, {@code p < kb} (aIndex is (i, p0)). */
    private void packA(MemorySegment a, long aIndex, long aRowStep, long aColStep, int rows, int kb, float alpha) {
        for (int r = 0; r < rows; r++) {
            long at = aIndex + r * aRowStep;
            if (aColStep == 1) { // a stored row: one bulk copy, then interleaved from the heap
                MemorySegment.copy(a, F, at * Float.BYTES, aRow, 0, kb);
                for (int p = 0; p < kb; p++) {
                    panel[p * rows + r] = alpha * aRow[p];
                }
                continue;
            }
            for (int p = 0; p < kb; p++, at += aColStep) {
                panel[p * rows + r] = alpha * a.getAtIndex(F, at);
            }
        }
    }

    /** The float[] that {@code s} is the whole of, or null (a native segment, a slice, another array type). */
    private static float[] wholeArray(MemorySegment s) {
        if (s.isNative() || s.address() != 0) {
            return null;
        }
        return s.heapBase().orElse(null) instanceof float[] values && values.length * 4L == s.byteSize() ? values : null;
    }

    /** Copies op(B)[p0..p0+kb, j0..j0+nb] into {@link #block}, row-major with row length nb. */
    private void packB(MemorySegment b, long bOffset, boolean transB, long k, long n, long p0, int kb, long j0, int nb) {
        if (!transB) {
            for (int p = 0; p < kb; p++) {
                MemorySegment.copy(b, F, (bOffset + (p0 + p) * n + j0) * Float.BYTES, block, p * nb, nb);
            }
        } else {
            // B is stored [N,K]: read each stored row contiguously, scatter it into a block column.
            for (int j = 0; j < nb; j++) {
                long row = bOffset + (j0 + j) * k + p0;
                for (int p = 0; p < kb; p++) {
                    block[p * nb + j] = b.getAtIndex(F, row + p);
                }
            }
        }
    }
}
