package dev.javaep.cuda.kernel.ptx;

/**
 * Suggested {@code cuLaunchKernel} geometry for the kernels of {@link CudaKernel}. The 1-D kernels
 * grid-stride, so the grid is capped ({@link #MAX_LINEAR_BLOCKS}) without losing work; launch
 * nothing when there is no work (a grid of 0 blocks is an error).
 */
public record LaunchShape(int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ) {
    /** Threads per block of the 1-D kernels and of {@code softmax_rows_f32} (8 warps). */
    public static final int LINEAR_BLOCK = 256;
    /** More blocks than this only add scheduling: every GPU we run on is full well before. */
    public static final int MAX_LINEAR_BLOCKS = 65535;
    /** Largest gridDim.y and gridDim.z. */
    public static final int MAX_GRID_YZ = 65535;

    /**
     * For {@code ew_*}, {@code un_*} ({@code items} = n, or n4 for the vector forms) and
     * {@code softmax_strided_f32} ({@code items} = outer*inner).
     */
    public static LaunchShape linear(long items) {
        return linear(items, MAX_LINEAR_BLOCKS);
    }

    /**
     * As {@link #linear(long)} with at most {@code maxBlocks} blocks. Capping at a few blocks per SM
     * lets each thread loop over several items, which pays off for kernels with per-thread setup
     * (the broadcast kernels load their 192-byte layout once per thread).
     */
    public static LaunchShape linear(long items, int maxBlocks) {
        requirePositive(items, "items");
        requirePositive(maxBlocks, "maxBlocks");
        long blocks = Math.min((items + LINEAR_BLOCK - 1) / LINEAR_BLOCK, Math.min(maxBlocks, MAX_LINEAR_BLOCKS));
        return new LaunchShape((int) blocks, 1, 1, LINEAR_BLOCK, 1, 1);
    }

    /** For {@code softmax_rows_f32}: one warp per row, 8 rows per block. */
    public static LaunchShape softmaxRows(long rows) {
        requirePositive(rows, "rows");
        int rowsPerBlock = LINEAR_BLOCK / 32;
        long blocks = Math.min((rows + rowsPerBlock - 1) / rowsPerBlock, MAX_LINEAR_BLOCKS);
        return new LaunchShape((int) blocks, 1, 1, LINEAR_BLOCK, 1, 1);
    }

    /**
     * For {@code gemm_f32}: 16x16 threads, one block per 16x16 tile of Y, one grid layer per batch.
     *
     * @throws IllegalArgumentException if {@code m > 16*65535} or {@code batches > 65535}: split
     *     the launch (advance a, b and y by the batch strides) before coming here
     */
    public static LaunchShape gemm(long m, long n, long batches) {
        requirePositive(m, "m");
        requirePositive(n, "n");
        requirePositive(batches, "batches");
        long gx = (n + GemmPtx.TILE - 1) / GemmPtx.TILE;
        long gy = (m + GemmPtx.TILE - 1) / GemmPtx.TILE;
        if (gy > MAX_GRID_YZ || batches > MAX_GRID_YZ || gx > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("gemm_f32 launches at most " + MAX_GRID_YZ + " batches and "
                    + (MAX_GRID_YZ * GemmPtx.TILE) + " rows at a time; got m=" + m + ", n=" + n + ", batches="
                    + batches + ": split the batches into several launches");
        }
        return new LaunchShape((int) gx, (int) gy, (int) batches, GemmPtx.TILE, GemmPtx.TILE, 1);
    }

    private static void requirePositive(long v, String what) {
        if (v <= 0) {
            throw new IllegalArgumentException(what + " must be positive, got " + v
                    + ": skip the launch when there is nothing to compute");
        }
    }
}
