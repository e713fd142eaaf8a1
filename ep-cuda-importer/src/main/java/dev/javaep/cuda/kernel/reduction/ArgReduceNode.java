package dev.javaep.cuda.kernel.reduction;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.CudaSource;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ReductionOps.ReduceGeometry;

/**
 * ArgMax and ArgMin on float32 and float16: the input as [outer, R, inner] around {@code axis}, a thread per output
 * (segmentation's ArgMax over classes of [N, C, H, W] has inner = H*W: neighbouring threads read neighbouring pixels).
 */
final class ArgReduceNode extends CudaNode {
    private final boolean max;
    private final long axis;
    private final boolean keepdims;
    private final ElementType type;
    private final CudaSource source;

    ArgReduceNode(CudaDevice device, boolean max, long axis, boolean keepdims, boolean selectLastIndex, ElementType type) {
        super(device, max ? "ArgMax" : "ArgMin");
        this.max = max;
        this.axis = axis;
        this.keepdims = keepdims;
        this.type = type;
        this.source = ReductionSources.argReduce(max, selectLastIndex, type);
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor x = typedInput(context, 0, type);
        long[] shape = x.shape();
        if (shape.length == 0) {
            throw new IllegalArgumentException(op + ": the input is a scalar, which has no axis");
        }
        ReduceGeometry g = ReduceGeometry.of(op, shape, new long[] {axis}, keepdims, false);
        Tensor y = context.output(0, g.outputShape());
        if (g.outputCount() == 0) {
            return;
        }
        if (g.reducedCount() == 0) {
            throw new IllegalArgumentException(op + ": axis " + axis + " of " + shape(shape) + " is empty: there is no extreme to index");
        }
        int a = (int) (axis < 0 ? axis + shape.length : axis);
        long outer = Shapes.product(shape, 0, a);
        long inner = Shapes.product(shape, a + 1, shape.length);
        kernels.launch(source, kernels.linear(outer * inner), 0, stream,
                KernelArguments.begin().u64(address(y)).u64(address(x)).i64(outer).i64(shape[a]).i64(inner));
    }
}
