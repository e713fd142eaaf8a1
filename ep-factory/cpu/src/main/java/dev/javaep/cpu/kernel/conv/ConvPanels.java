package dev.javaep.cpu.kernel.conv;

import static dev.javaep.cpu.kernel.conv.FloatData.F;

import dev.javaep.cpu.kernel.KernelThreads;
import dev.javaep.cpu.kernel.VectorSupport;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/**
 * A convolution's weights packed in panels of four output channels, and the product of a group's panels with its input
 * rows: {@code Y[m, j] = B[m] + sum_p W[m, p] * in[p, j]}, where input row {@code p} (a channel and kernel tap) is any
 * run of a heap array ({@code rowAt[p]}: an im2col column row, or a shifted view of a padded input plane).
 *
 * <p>The weights are packed once per plan when they are a constant initializer (they are, in exported networks), else
 * on every call; either way into this object's array, never per block of the product. Each output is computed in
 * registers over the whole depth, starts from its bias and is stored once (into a tile, copied to Y by output row), so
 * Y is neither pre-filled nor read back. Products of {@link #PARALLEL_MULTIPLY_ADDS} or more are split across the
 * kernel threads by blocks of positions. Not thread-safe: one per plan and thread, as {@link FloatConvolution}.
 */
final class ConvPanels {
    /** Output channels computed together. */
    static final int ROWS = 4;
    /** Input floats (distinct input rows × block width) one block of positions reads, for every panel: kept within L2. */
    private static final int BLOCK_FLOATS = 1 << 15;
    /**
     * Block widths: multiples of this, three AVX-512 vectors (six AVX2 ones), so that only a plane's last block ends in
     * the tile's narrower steps; at most {@link #MAX_BLOCK}.
     */
    private static final int GRAIN = 48;
    static final int MAX_BLOCK = 10 * GRAIN;
    /**
     * Floats past its end that an input buffer and a tile row must have: the vector kernel computes whole vectors, so
     * it reads up to one vector (of the widest species, 2048 bits) past the last position and writes as far past the
     * last column.
     */
    static final int SLACK = 64;
    private static final int TILE_ROW = MAX_BLOCK + SLACK;
    private static final long PARALLEL_MULTIPLY_ADDS = 1L << 18;

    private final int groups;
    private final int perGroup;
    private final int depth;
    private final int panels;
    private final boolean constantWeights;
    /** {@code [group][panel][p][r]}: four weight rows interleaved, zero rows past the group's last channel. */
    private final float[] packed;
    /** {@code [group][panel * 4 + r]}, zero past the group's last channel. */
    private final float[] bias;
    private boolean packedOnce;
    private final KernelThreads.Body blockTasks = this::blockTask;
    /** The layout of the positions ({@link #layout}). */
    private int[] rowAt;
    private int block;
    private int pitch;
    private int width;
    private int outSize;
    private int outAt;
    /** The call's operands, for the task bodies. */
    private int group;
    private float[] in;
    private int positions;
    private float[] out;
    private int blocksPerTask;

    ConvPanels(int groups, int perGroup, int depth, boolean constantWeights) {
        this.groups = groups;
        this.perGroup = perGroup;
        this.depth = depth;
        this.panels = Math.ceilDiv(perGroup, ROWS);
        this.constantWeights = constantWeights;
        this.packed = new float[groups * panels * ROWS * depth];
        this.bias = new float[groups * panels * ROWS];
    }

    /** Whether {@link #prepare} still reads the weights (false once constant weights are packed). */
    boolean needsWeights() {
        return !(constantWeights && packedOnce);
    }

    /** Packs W {@code [M, depth]} unless constant ones already are, and reads B (null: zeros). */
    void prepare(MemorySegment weights, MemorySegment b) {
        if (needsWeights()) {
            for (int m = 0; m < groups * perGroup; m++) {
                int group = m / perGroup;
                int panel = m % perGroup / ROWS;
                int base = (group * panels + panel) * ROWS * depth + m % perGroup % ROWS;
                long row = (long) m * depth;
                for (int p = 0; p < depth; p++) {
                    packed[base + p * ROWS] = weights.getAtIndex(F, row + p);
                }
            }
            packedOnce = true;
        }
        for (int m = 0; m < groups * perGroup; m++) {
            bias[m / perGroup * panels * ROWS + m % perGroup] = b == null ? 0f : b.getAtIndex(F, m);
        }
    }

    /**
     * How {@link #multiply} reads and writes positions: input row {@code p} (a channel and kernel tap) starts at
     * {@code rowAt[p]} of the input array; position j is output {@code j % pitch} of output row {@code j / pitch} when
     * {@code j % pitch < width} (else a column of padding, computed and dropped), at {@code outAt + q * width} of the
     * output array, whose channels are {@code outSize} apart. {@code distinctRows}: how many different input rows a block of positions reads (the depth
     * for im2col columns; the channels for shifted rows, whose taps of one channel read one plane at nearby offsets),
     * which sets the block's width.
     */
    void layout(int[] rowAt, int distinctRows, int pitch, int width, int outSize, int outAt) {
        this.rowAt = rowAt;
        this.block = Math.clamp(BLOCK_FLOATS / distinctRows / GRAIN * GRAIN, GRAIN, MAX_BLOCK);
        this.pitch = pitch;
        this.width = width;
        this.outSize = outSize;
        this.outAt = outAt;
    }

    /**
     * The outputs of {@code group} at positions {@code [0, positions)} of {@code in}, laid out as {@link #layout} says:
     * output row q of the group's channel c goes to {@code out[outAt + c * outSize + q * width]}. A heap array, copied
     * to Y by the caller in one piece: a segment copy per output row cost more than the rows of small planes move.
     */
    void multiply(int group, float[] in, int positions, float[] out) {
        int blocks = Math.ceilDiv(positions, block);
        KernelThreads pool = KernelThreads.current();
        int tasks = blocks < 2 || (long) positions * depth * perGroup < PARALLEL_MULTIPLY_ADDS ? 1
                : Math.min(blocks, pool.tasks());
        if (tasks == 1) {
            multiplyBlocks(group, in, 0, positions, out);
            return;
        }
        this.group = group;
        this.in = in;
        this.positions = positions;
        this.out = out;
        this.blocksPerTask = Math.ceilDiv(blocks, tasks);
        try {
            pool.parallelFor(tasks, blockTasks);
        } finally {
            this.in = null; // the thread's buffers are not kept reachable from the plan
            this.out = null;
        }
    }

    private void blockTask(int t) {
        int first = t * blocksPerTask * block;
        multiplyBlocks(group, in, first, Math.min(positions, first + blocksPerTask * block), out);
    }

    private void multiplyBlocks(int group, float[] in, int from, int to, float[] out) {
        float[] tile = FloatConvolution.buffer(FloatConvolution.TILE, ROWS * TILE_ROW);
        for (int j0 = from; j0 < to; j0 += block) {
            int j1 = Math.min(to, j0 + block);
            for (int panel = 0; panel < panels; panel++) {
                int aAt = (group * panels + panel) * ROWS * depth;
                int biasAt = (group * panels + panel) * ROWS;
                if (VectorSupport.AVAILABLE) {
                    ConvVectors.fourChannels(packed, aAt, depth, in, rowAt, j0, j1, bias, biasAt, tile, TILE_ROW);
                } else {
                    fourChannelsScalar(packed, aAt, depth, in, rowAt, j0, j1, bias, biasAt, tile, TILE_ROW);
                }
                int rows = Math.min(ROWS, perGroup - panel * ROWS);
                for (int r = 0; r < rows; r++) {
                    store(tile, r * TILE_ROW, j0, j1, pitch, width, out, outAt + (panel * ROWS + r) * outSize);
                }
            }
        }
    }

    /**
     * Output channel {@code j} of {@code group} at positions {@code [0, positions)} into {@code out} (plus
     * {@link #SLACK}): a depthwise convolution, whose one input channel's taps are at {@code rowAt[0 .. depth)}.
     */
    void oneChannel(int group, int j, float[] in, int[] rowAt, int positions, float[] out) {
        int aAt = (group * panels + j / ROWS) * ROWS * depth + j % ROWS;
        float b = bias[group * panels * ROWS + j];
        if (VectorSupport.AVAILABLE) {
            ConvVectors.oneChannel(packed, aAt, depth, in, rowAt, positions, b, out);
            return;
        }
        Arrays.fill(out, 0, positions, b);
        for (int p = 0; p < depth; p++) {
            float a = packed[aAt + p * ROWS];
            for (int i = 0, at = rowAt[p]; i < positions; i++) {
                out[i] += a * in[at + i];
            }
        }
    }

    /** Copies tile row positions {@code [j0, j1)} (at {@code tileAt}) to the output rows at {@code outAt}, dropping padding. */
    static void store(float[] tile, int tileAt, int j0, int j1, int pitch, int width, float[] out, int outAt) {
        if (pitch == width) {
            System.arraycopy(tile, tileAt, out, outAt + j0, j1 - j0);
            return;
        }
        for (int q = j0 / pitch, rowStart = q * pitch; rowStart < j1; q++, rowStart += pitch) {
            int first = Math.max(j0, rowStart);
            int end = Math.min(j1, rowStart + width);
            if (first < end) {
                System.arraycopy(tile, tileAt + first - j0, out, outAt + q * width + first - rowStart, end - first);
            }
        }
    }

    /** {@link ConvVectors#fourChannels} without the Vector API (no slack used). */
    private static void fourChannelsScalar(float[] a, int aAt, int depth, float[] b, int[] rowAt, int from, int to,
                                           float[] bias, int biasAt, float[] tile, int tileRow) {
        int count = to - from;
        for (int r = 0; r < ROWS; r++) {
            Arrays.fill(tile, r * tileRow, r * tileRow + count, bias[biasAt + r]);
        }
        for (int p = 0, ai = aAt; p < depth; p++, ai += ROWS) {
            float a0 = a[ai];
            float a1 = a[ai + 1];
            float a2 = a[ai + 2];
            float a3 = a[ai + 3];
            int bi = rowAt[p] + from;
            for (int j = 0; j < count; j++) {
                float bv = b[bi + j];
                tile[j] += a0 * bv;
                tile[tileRow + j] += a1 * bv;
                tile[2 * tileRow + j] += a2 * bv;
                tile[3 * tileRow + j] += a3 * bv;
            }
        }
    }
}
