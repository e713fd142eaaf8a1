package dev.javaep.cpu.kernel.conv;

import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorMask;
import jdk.incubator.vector.VectorSpecies;

/**
 * The convolution's register tile with the Vector API: four output channels × three vectors of output positions stay
 * in registers over the whole depth {@code C/g · K} (12 accumulators, which AVX2's 16 registers still hold), so every
 * loaded vector of the input feeds four fused multiply-adds and each output is written once, bias included. Loaded only
 * where {@link dev.javaep.cpu.kernel.VectorSupport#AVAILABLE} (see {@link dev.javaep.cpu.kernel.FloatVectors} for
 * why); {@code ConvPanels.fourChannelsScalar} is the scalar twin.
 */
final class ConvVectors {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    /** Lanes 0, 2, 4, ...: what a stride-2 phase row takes of its input row. */
    private static final VectorMask<Float> EVEN_LANES = VectorMask.fromLong(S, 0x5555_5555_5555_5555L);
    private static final VectorMask<Float> LOW_HALF = S.indexInRange(0, L / 2);

    private ConvVectors() {}

    /**
     * {@code tile[r*tileRow + j - from] = bias[r] + sum_p a[aAt + p*4 + r] * b[rowAt[p] + j]} for {@code r < 4},
     * {@code from <= j < to} and {@code p < depth}: {@code a} holds four weight rows interleaved, {@code rowAt[p]} where
     * input row {@code p} (a channel and kernel tap) starts in {@code b}. {@code b} and each tile row have
     * {@link ConvPanels#SLACK} floats past what they hold (the last vector may reach past {@code to}).
     */
    static void fourChannels(float[] a, int aAt, int depth, float[] b, int[] rowAt, int from, int to,
                             float[] bias, int biasAt, float[] tile, int tileRow) {
        float bias0 = bias[biasAt];
        float bias1 = bias[biasAt + 1];
        float bias2 = bias[biasAt + 2];
        float bias3 = bias[biasAt + 3];
        // whole vectors, the last one reaching past {@code to}: its extra lanes read the buffer's slack or positions
        // that are dropped, and land in the tile's slack
        int j = from;
        for (; j + 2 * L < to; j += 3 * L) { // 12 accumulators: 3 loads and 4 broadcasts feed 12 FMAs
            FloatVector c00 = FloatVector.broadcast(S, bias0);
            FloatVector c01 = c00;
            FloatVector c02 = c00;
            FloatVector c10 = FloatVector.broadcast(S, bias1);
            FloatVector c11 = c10;
            FloatVector c12 = c10;
            FloatVector c20 = FloatVector.broadcast(S, bias2);
            FloatVector c21 = c20;
            FloatVector c22 = c20;
            FloatVector c30 = FloatVector.broadcast(S, bias3);
            FloatVector c31 = c30;
            FloatVector c32 = c30;
            for (int p = 0, ai = aAt; p < depth; p++, ai += 4) {
                int bi = rowAt[p] + j;
                FloatVector b0 = FloatVector.fromArray(S, b, bi);
                FloatVector b1 = FloatVector.fromArray(S, b, bi + L);
                FloatVector b2 = FloatVector.fromArray(S, b, bi + 2 * L);
                FloatVector a0 = FloatVector.broadcast(S, a[ai]);
                c00 = b0.fma(a0, c00);
                c01 = b1.fma(a0, c01);
                c02 = b2.fma(a0, c02);
                FloatVector a1 = FloatVector.broadcast(S, a[ai + 1]);
                c10 = b0.fma(a1, c10);
                c11 = b1.fma(a1, c11);
                c12 = b2.fma(a1, c12);
                FloatVector a2 = FloatVector.broadcast(S, a[ai + 2]);
                c20 = b0.fma(a2, c20);
                c21 = b1.fma(a2, c21);
                c22 = b2.fma(a2, c22);
                FloatVector a3 = FloatVector.broadcast(S, a[ai + 3]);
                c30 = b0.fma(a3, c30);
                c31 = b1.fma(a3, c31);
                c32 = b2.fma(a3, c32);
            }
            int t = j - from;
            c00.intoArray(tile, t);
            c01.intoArray(tile, t + L);
            c02.intoArray(tile, t + 2 * L);
            c10.intoArray(tile, tileRow + t);
            c11.intoArray(tile, tileRow + t + L);
            c12.intoArray(tile, tileRow + t + 2 * L);
            c20.intoArray(tile, 2 * tileRow + t);
            c21.intoArray(tile, 2 * tileRow + t + L);
            c22.intoArray(tile, 2 * tileRow + t + 2 * L);
            c30.intoArray(tile, 3 * tileRow + t);
            c31.intoArray(tile, 3 * tileRow + t + L);
            c32.intoArray(tile, 3 * tileRow + t + 2 * L);
        }
        if (j + L < to) { // two vectors of positions left
            FloatVector c00 = FloatVector.broadcast(S, bias0);
            FloatVector c01 = c00;
            FloatVector c10 = FloatVector.broadcast(S, bias1);
            FloatVector c11 = c10;
            FloatVector c20 = FloatVector.broadcast(S, bias2);
            FloatVector c21 = c20;
            FloatVector c30 = FloatVector.broadcast(S, bias3);
            FloatVector c31 = c30;
            for (int p = 0, ai = aAt; p < depth; p++, ai += 4) {
                int bi = rowAt[p] + j;
                FloatVector b0 = FloatVector.fromArray(S, b, bi);
                FloatVector b1 = FloatVector.fromArray(S, b, bi + L);
                FloatVector a0 = FloatVector.broadcast(S, a[ai]);
                c00 = b0.fma(a0, c00);
                c01 = b1.fma(a0, c01);
                FloatVector a1 = FloatVector.broadcast(S, a[ai + 1]);
                c10 = b0.fma(a1, c10);
                c11 = b1.fma(a1, c11);
                FloatVector a2 = FloatVector.broadcast(S, a[ai + 2]);
                c20 = b0.fma(a2, c20);
                c21 = b1.fma(a2, c21);
                FloatVector a3 = FloatVector.broadcast(S, a[ai + 3]);
                c30 = b0.fma(a3, c30);
                c31 = b1.fma(a3, c31);
            }
            int t = j - from;
            c00.intoArray(tile, t);
            c01.intoArray(tile, t + L);
            c10.intoArray(tile, tileRow + t);
            c11.intoArray(tile, tileRow + t + L);
            c20.intoArray(tile, 2 * tileRow + t);
            c21.intoArray(tile, 2 * tileRow + t + L);
            c30.intoArray(tile, 3 * tileRow + t);
            c31.intoArray(tile, 3 * tileRow + t + L);
            j += 2 * L;
        }
        if (j < to) { // at most one vector of positions left
            FloatVector c0 = FloatVector.broadcast(S, bias0);
            FloatVector c1 = FloatVector.broadcast(S, bias1);
            FloatVector c2 = FloatVector.broadcast(S, bias2);
            FloatVector c3 = FloatVector.broadcast(S, bias3);
            for (int p = 0, ai = aAt; p < depth; p++, ai += 4) {
                FloatVector b0 = FloatVector.fromArray(S, b, rowAt[p] + j);
                c0 = b0.fma(FloatVector.broadcast(S, a[ai]), c0);
                c1 = b0.fma(FloatVector.broadcast(S, a[ai + 1]), c1);
                c2 = b0.fma(FloatVector.broadcast(S, a[ai + 2]), c2);
                c3 = b0.fma(FloatVector.broadcast(S, a[ai + 3]), c3);
            }
            int t = j - from;
            c0.intoArray(tile, t);
            c1.intoArray(tile, tileRow + t);
            c2.intoArray(tile, 2 * tileRow + t);
            c3.intoArray(tile, 3 * tileRow + t);
        }
    }

    /**
     * {@code out[j] = bias + sum_p a[aAt + p*4] * b[rowAt[p] + j]} for {@code j < positions} (one channel of a panel:
     * the depthwise convolution), in whole vectors (two at a time, so that two FMA chains overlap) into {@code out}'s
     * slack.
     */
    static void oneChannel(float[] a, int aAt, int depth, float[] b, int[] rowAt, int positions, float bias, float[] out) {
        int j = 0;
        for (; j + L < positions; j += 2 * L) {
            FloatVector c0 = FloatVector.broadcast(S, bias);
            FloatVector c1 = c0;
            for (int p = 0, ai = aAt; p < depth; p++, ai += 4) {
                int bi = rowAt[p] + j;
                FloatVector t = FloatVector.broadcast(S, a[ai]);
                c0 = FloatVector.fromArray(S, b, bi).fma(t, c0);
                c1 = FloatVector.fromArray(S, b, bi + L).fma(t, c1);
            }
            c0.intoArray(out, j);
            c1.intoArray(out, j + L);
        }
        if (j < positions) {
            FloatVector c0 = FloatVector.broadcast(S, bias);
            for (int p = 0, ai = aAt; p < depth; p++, ai += 4) {
                c0 = FloatVector.fromArray(S, b, rowAt[p] + j).fma(FloatVector.broadcast(S, a[ai]), c0);
            }
            c0.intoArray(out, j);
        }
    }

    /**
     * {@code to[at + i] = from[first + 2 * i]} for {@code i} below {@code count} rounded down to half vectors: one
     * load, compress and masked store per half vector of a stride-2 phase row (the scalar loop moved one float per two
     * cycles). Reads one float past {@code from[first + 2 * count - 2]}. Returns how many it copied; the caller copies
     * the rest.
     */
    static int everyOther(float[] from, int first, float[] to, int at, int count) {
        int half = L / 2;
        int i = 0;
        for (; i + half <= count; i += half) {
            FloatVector.fromArray(S, from, first + 2 * i).compress(EVEN_LANES).intoArray(to, at + i, LOW_HALF);
        }
        return i;
    }
}
