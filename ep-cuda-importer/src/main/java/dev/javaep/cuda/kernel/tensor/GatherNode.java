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
 * Gather along an axis. Indices whose values are on the host (a constant, or computed on the host) are
 * checked there, as JavaCpu checks them; indices only on the device are read by the kernel, which writes
 * zeros for an index out of range instead of failing the Run.
 */
final class GatherNode extends CudaNode {
    private final long axis;

    GatherNode(CudaDevice device, long axis) {
        super(device, "Gather");
        this.axis = axis;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor data = context.input(0);
        Tensor indices = context.input(1);
        TensorOps.Gathering g = TensorOps.gather(data.shape(), indices.shape(), axis);
        if (context instanceof CudaKernelContext cuda && cuda.hasHostValue(1)) {
            for (long index : cuda.hostInput(1).longs()) {
                TensorOps.index(op, index, g.axisDim());
            }
        }
        Tensor y = context.output(0, g.outputShape());
        long n = y.elementCount();
        if (n == 0) {
            return;
        }
        kernels.launch(TensorSources.indexed("javaep_gather", TensorSources.GATHER, data.elementType().byteSize(),
                        indices.elementType()), kernels.linear(n), 0, stream,
                KernelArguments.begin().u64(address(y)).u64(address(data)).u64(address(indices)).i64(g.axisDim())
                        .i64(g.inner()).i64(g.indexCount()).i64(n));
    }
}
