package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelContext;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.KernelSlot;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;

/**
 * Gather and GatherElements: data (input 0) read at indices (input 1) along {@code axis}, one thread per output
 * element. Indices whose values are on the host (a constant, or computed on the host) are checked there, as JavaCpu
 * checks them; indices only on the device are read by the kernel, which writes zeros for an index out of range
 * instead of failing the Run.
 */
abstract sealed class IndexGatherNode extends CudaNode permits GatherNode, GatherElementsNode {
    /** The kernel's arguments after {@code (y, data, indices)}, for an output of {@code n} elements. */
    @FunctionalInterface
    interface Arguments {
        KernelArguments append(KernelArguments head, long n);
    }

    /** One gather: its output's shape, the length of the data axis an index addresses, the kernel's other arguments. */
    record Plan(long[] outputShape, long axisLength, Arguments arguments) {}

    protected final long axis;
    private final String entry;
    private final String body;
    /** The kernel by element size in bytes (low bits) and index type. */
    private final KernelSlot kernel;

    IndexGatherNode(CudaDevice device, String op, long axis, String entry, String body) {
        super(device, op);
        this.axis = axis;
        this.entry = entry;
        this.body = body;
        this.kernel = new KernelSlot(k -> TensorSources.indexed(entry, body, (int) (k >>> 8),
                    KernelSlot.type(k, 0)));
    }

    /** The plan for these inputs; throws for shapes the op (or the kernel) does not take. */
    abstract Plan plan(Tensor data, Tensor indices);

    @Override
    protected final void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor data = context.input(0);
        Tensor indices = context.input(1);
        Plan plan = plan(data, indices);
        if (context instanceof CudaKernelContext cuda && cuda.hasHostValue(1)) {
            for (long index : cuda.hostInput(1).longs()) {
                TensorOps.index(op, index, plan.axisLength());
            }
        }
        Tensor y = context.output(0, plan.outputShape());
        long n = y.elementCount();
        if (n == 0) {
            return;
        }
        kernel.launch(kernels, KernelSlot.key(indices.elementType()) | (long) data.elementType().byteSize() << 8,
                kernels.linear(n), 0, stream, plan.arguments().append(
                        KernelArguments.begin().u64(address(y)).u64(address(data)).u64(address(indices)), n));
    }
}
