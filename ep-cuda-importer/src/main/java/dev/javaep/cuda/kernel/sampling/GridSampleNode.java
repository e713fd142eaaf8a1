package dev.javaep.cuda.kernel.sampling;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.KernelSlot;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.SamplingOps.GridSampleAttributes;
import dev.javaep.spi.ops.SamplingOps.GridSampleGeometry;

/** GridSample in float32 or float16 (input and grid each), 1 to 6 spatial dimensions: one thread per output element. */
final class GridSampleNode extends CudaNode {
    /** The kernel keeps each spatial axis's taps in arrays of 6. */
    static final int MAX_SPATIAL_RANK = 6;

    private final GridSampleAttributes attributes;
    private final int sinceVersion;
    private final KernelSlot kernel;

    GridSampleNode(CudaDevice device, GridSampleAttributes attributes, int sinceVersion) {
        super(device, "GridSample");
        this.attributes = attributes;
        this.sinceVersion = sinceVersion;
        this.kernel = new KernelSlot(k -> SamplingSources.gridSample(attributes, KernelSlot.type(k, 0),
                    KernelSlot.type(k, 1)));
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor x = context.input(0);
        Tensor grid = context.input(1);
        GridSampleGeometry g = GridSampleGeometry.of(x.shape(), grid.shape(), sinceVersion);
        if (g.spatialRank() > MAX_SPATIAL_RANK) {
            throw new IllegalArgumentException(op + ": " + g.spatialRank() + " spatial dimensions; the kernel takes "
                    + MAX_SPATIAL_RANK);
        }
        Tensor y = context.output(0, g.output());
        long total = y.elementCount();
        if (total == 0) {
            return;
        }
        kernel.launch(kernels, KernelSlot.key(x.elementType(), grid.elementType()), kernels.linear(total),
                0, stream, KernelArguments.begin().u64(address(y)).u64(address(x)).u64(address(grid))
                        .longs(g.input(), 8).longs(g.output(), 8).i32(g.spatialRank()).i64(total));
    }
}
