package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelContext;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;

/**
 * GatherElements along an axis (rank <= 8). Indices on the host are checked there; device-only indices out of
 * range give zeros.
 */
final class GatherElementsNode extends CudaNode {
    private final long axis;

    GatherElementsNode(CudaDevice device, long axis) {
        super(device, "GatherElements");
        this.axis = axis;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor data = context.input(0);
        Tensor indices = context.input(1);
        int a = TensorOps.gatherElementsAxis(data.shape(), indices.shape(), axis);
        int rank = data.shape().length;
        if (rank > Launches.MAX_RANK) {
            throw new IllegalArgumentException(op + ": JavaCuda gathers from tensors of rank <= 8, this one has rank " + rank);
        }
        if (context instanceof CudaKernelContext cuda && cuda.hasHostValue(1)) {
            for (long index : cuda.hostInput(1).longs()) {
                TensorOps.index(op, index, data.shape()[a]);
            }
        }
        Tensor y = context.output(0, indices.shape());
        long n = y.elementCount();
        if (n == 0) {
            return;
        }
        kernels.launch(TensorSources.indexed("javaep_gather_elements", TensorSources.GATHER_ELEMENTS,
                        data.elementType().byteSize(), indices.elementType()), kernels.linear(n), 0, stream,
                KernelArguments.begin().u64(address(y)).u64(address(data)).u64(address(indices))
                        .longs(indices.shape(), Launches.MAX_RANK).longs(TensorOps.contiguousStrides(data.shape()), Launches.MAX_RANK)
                        .i32(rank).i32(a).i64(data.shape()[a]).i64(n));
    }
}
