package dev.javaep.cpu.kernel.sampling;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.FloatAccess;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.SamplingOps;
import dev.javaep.spi.ops.SamplingOps.GridSampleAttributes;
import dev.javaep.spi.ops.SamplingOps.GridSampleGeometry;
import java.util.List;

/**
 * GridSample on float32 or float16 inputs and grids, any number of spatial dimensions: for each output position
 * the grid's normalised coordinates give each spatial axis its taps ({@link SamplingOps#gridTaps}: unnormalised,
 * padded); every channel is then the weighted sum over the combinations of those taps, a tap outside the input
 * reading 0 (zeros padding). Summed in float, in the order the CUDA kernel sums.
 */
record GridSampleKernel(GridSampleAttributes attributes, int sinceVersion) implements CpuKernel {
    private static final String OP = "GridSample";

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        return new long[][] {geometry(inputShapes[0], inputShapes[1]).output()};
    }

    private GridSampleGeometry geometry(long[] x, long[] grid) {
        return GridSampleGeometry.of(Shapes.checked(x), Shapes.checked(grid), sinceVersion);
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor x = inputs.get(0);
        Tensor gridTensor = inputs.get(1);
        GridSampleGeometry g = geometry(x.shape(), gridTensor.shape());
        Shapes.requireOutputShape(OP, outputs, g.output());
        if (outputs.get(0).elementCount() == 0) {
            return;
        }
        FloatAccess in = FloatAccess.of(OP, "X", x);
        FloatAccess grid = FloatAccess.of(OP, "grid", gridTensor);
        FloatAccess out = FloatAccess.of(OP, "Y", outputs.get(0));
        int r = g.spatialRank();
        long batches = g.input()[0];
        long channels = g.input()[1];
        long inPlane = Shapes.product(g.input(), 2, r + 2);
        long outPlane = Shapes.product(g.output(), 2, r + 2);
        long[] inStrides = new long[r];
        for (int d = 0; d < r; d++) {
            inStrides[d] = Shapes.product(g.input(), d + 3, r + 2);
        }
        int width = attributes.maxTaps();
        long[][] index = new long[r][width];
        float[][] weight = new float[r][Math.max(width, 4)];
        int[] count = new int[r];
        int[] tap = new int[r];
        for (long n = 0; n < batches; n++) {
            for (long p = 0; p < outPlane; p++) {
                long gridBase = (n * outPlane + p) * r;
                for (int d = 0; d < r; d++) {
                    // the grid lists coordinates innermost axis first: component 0 is the last spatial axis
                    count[d] = SamplingOps.gridTaps(attributes, grid.get(gridBase + r - 1 - d), g.input()[d + 2],
                            index[d], weight[d]);
                }
                for (long c = 0; c < channels; c++) {
                    long inBase = (n * channels + c) * inPlane;
                    java.util.Arrays.fill(tap, 0);
                    float sum = 0f;
                    while (true) {
                        float w = 1f;
                        long offset = inBase;
                        boolean zero = false;
                        for (int d = 0; d < r; d++) {
                            long i = index[d][tap[d]];
                            w *= weight[d][tap[d]];
                            zero |= i < 0;
                            offset += i * inStrides[d];
                        }
                        if (!zero) {
                            sum += w * in.get(offset);
                        }
                        int d = r - 1;
                        while (d >= 0 && ++tap[d] == count[d]) {
                            tap[d] = 0;
                            d--;
                        }
                        if (d < 0) {
                            break;
                        }
                    }
                    out.set((n * channels + c) * outPlane + p, sum);
                }
            }
        }
    }
}
