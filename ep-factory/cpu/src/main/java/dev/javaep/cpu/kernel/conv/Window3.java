package dev.javaep.cpu.kernel.conv;

import dev.javaep.spi.ops.ConvOps.ConvGeometry;
import dev.javaep.spi.ops.PoolOps.PoolGeometry;

/**
 * The spatial part of a convolution or pool, as three axes (depth, height, width): 1-D and 2-D ops are the 3-D op
 * with leading axes of size 1, so one loop nest serves all three ranks. Sizes of one image fit in an int.
 */
record Window3(int inD, int inH, int inW, int outD, int outH, int outW, int kD, int kH, int kW,
               int strideD, int strideH, int strideW, int dilationD, int dilationH, int dilationW,
               int padD, int padH, int padW, int padEndD, int padEndH, int padEndW) {

    /** The most spatial axes the CPU kernels take. */
    static final int MAX_RANK = 3;

    static Window3 of(ConvGeometry g) {
        return of(g.inputSpatial(), g.outputSpatial(), g.kernel(), g.strides(), g.dilations(), g.padsBegin(), g.padsEnd());
    }

    static Window3 of(PoolGeometry g) {
        return of(g.inputSpatial(), g.outputSpatial(), g.kernel(), g.strides(), g.dilations(), g.padsBegin(), g.padsEnd());
    }

    private static Window3 of(long[] in, long[] out, long[] k, long[] s, long[] d, long[] pb, long[] pe) {
        int r = in.length;
        if (r > MAX_RANK) {
            throw new IllegalArgumentException("JavaCpu's convolution and pooling kernels take 1 to " + MAX_RANK
                    + " spatial axes, this node has " + r);
        }
        long[][] axes = {in, out, k, s, d, pb, pe};
        long[] fill = {1, 1, 1, 1, 1, 0, 0};
        int[][] v = new int[axes.length][MAX_RANK];
        for (int a = 0; a < axes.length; a++) {
            for (int i = 0; i < MAX_RANK; i++) {
                int source = i - (MAX_RANK - r);
                v[a][i] = Math.toIntExact(source < 0 ? fill[a] : axes[a][source]);
            }
        }
        return new Window3(v[0][0], v[0][1], v[0][2], v[1][0], v[1][1], v[1][2], v[2][0], v[2][1], v[2][2],
                v[3][0], v[3][1], v[3][2], v[4][0], v[4][1], v[4][2], v[5][0], v[5][1], v[5][2], v[6][0], v[6][1], v[6][2]);
    }

    int inSize() {
        return inD * inH * inW;
    }

    int outSize() {
        return outD * outH * outW;
    }

    int kernelSize() {
        return kD * kH * kW;
    }

    /**
     * The first {@code j} whose position {@code o * stride - pad + j * dilation} lies in {@code [0, in)}: the start of
     * the kernel taps of output {@code o} that read the input rather than padding.
     */
    static int firstTap(int start, int dilation) {
        return start >= 0 ? 0 : (-start + dilation - 1) / dilation;
    }

    /** One past the last tap (at most {@code k}) whose position {@code start + j * dilation} is below {@code in}. */
    static int endTap(int start, int dilation, int k, int in) {
        if (start >= in) {
            return 0;
        }
        return Math.min(k, (in - start + dilation - 1) / dilation);
    }
}
