package dev.javaep.cuda.kernel.reduction;

import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.ptx.CudaKernel;
import dev.javaep.cuda.kernel.ptx.LaunchShape;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;

/**
 * Softmax. Opset 13 normalises along {@code axis}; earlier opsets flatten the input to 2-D at
 * {@code axis} and normalise each row. Rows along the last axis use one warp per row; along an
 * inner axis, one thread per (outer, inner) pair walks the strided axis.
 */
public final class SoftmaxNode extends CudaNode {
    private final long axis;
    private final boolean flattenTo2d;

    SoftmaxNode(CudaDevice device, long axis, boolean flattenTo2d) {
        super(device, "Softmax");
        this.axis = axis;
        this.flattenTo2d = flattenTo2d;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor x = floatInput(context, 0);
        long[] shape = x.shape();
        Tensor y = context.output(0, shape);
        if (y.elementCount() == 0) {
            return;
        }
        int rank = shape.length;
        if (axis < -rank || axis >= rank) {
            throw new IllegalArgumentException("Softmax: axis " + axis + " is out of range for shape " + shape(shape));
        }
        int a = (int) (axis < 0 ? axis + rank : axis);
        long outer = product(shape, 0, a);
        long axisLength = flattenTo2d ? product(shape, a, rank) : shape[a];
        long inner = flattenTo2d ? 1 : product(shape, a + 1, rank);
        if (inner == 1) {
            kernels.launch(CudaKernel.SOFTMAX_ROWS_F32, LaunchShape.softmaxRows(outer), stream,
                    KernelArguments.begin().u64(address(y)).u64(address(x)).u64(outer).u64(axisLength));
        } else {
            launch1d(kernels, CudaKernel.SOFTMAX_STRIDED_F32, outer * inner, stream,
                    KernelArguments.begin().u64(address(y)).u64(address(x)).u64(outer).u64(axisLength).u64(inner));
        }
    }
}
