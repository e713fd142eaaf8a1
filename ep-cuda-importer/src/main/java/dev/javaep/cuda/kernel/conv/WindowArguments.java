package dev.javaep.cuda.kernel.conv;

import dev.javaep.spi.ops.ConvOps.ConvGeometry;
import dev.javaep.spi.ops.PoolOps.PoolGeometry;

/**
 * The {@code Window} struct of {@link ConvSources}' kernels: N, C, M, group, then per axis (depth, height, width, with
 * leading axes of size 1 for 1-D and 2-D ops) the input and output sizes, kernel, strides, dilations and the pads at
 * both ends, then AveragePool's count_include_pad and MaxPool's storage_order. Passed by value with {@code KernelArguments.longs}.
 */
final class WindowArguments {
    static final int LONGS = 32;
    /** Spatial axes the kernels take. */
    static final int MAX_RANK = 3;

    private WindowArguments() {}

    static long[] of(ConvGeometry g) {
        long[] v = spatial(g.inputSpatial(), g.outputSpatial(), g.kernel(), g.strides(), g.dilations(), g.padsBegin(),
                g.padsEnd());
        v[0] = g.batch();
        v[1] = g.inChannels();
        v[2] = g.outChannels();
        v[3] = g.group();
        return v;
    }

    static long[] of(PoolGeometry g, boolean countIncludePad, boolean columnMajorIndices) {
        long[] v = spatial(g.inputSpatial(), g.outputSpatial(), g.kernel(), g.strides(), g.dilations(), g.padsBegin(),
                g.padsEnd());
        v[0] = g.batch();
        v[1] = g.channels();
        v[2] = g.channels();
        v[3] = 1;
        v[25] = countIncludePad ? 1 : 0;
        v[26] = columnMajorIndices ? 1 : 0;
        return v;
    }

    private static long[] spatial(long[] in, long[] out, long[] k, long[] s, long[] d, long[] pb, long[] pe) {
        int r = in.length;
        if (r > MAX_RANK || r < 1) {
            throw new IllegalArgumentException("JavaCuda's convolution and pooling kernels take 1 to " + MAX_RANK
                    + " spatial axes, this node has " + r);
        }
        long[] v = new long[LONGS];
        long[][] axes = {in, out, k, s, d, pb, pe};
        long[] fill = {1, 1, 1, 1, 1, 0, 0};
        for (int a = 0; a < axes.length; a++) {
            for (int i = 0; i < MAX_RANK; i++) {
                int source = i - (MAX_RANK - r);
                long value = source < 0 ? fill[a] : axes[a][source];
                if (value > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("a spatial size of " + value + " exceeds what the kernels index");
                }
                v[4 + a * MAX_RANK + i] = value;
            }
        }
        return v;
    }
}
