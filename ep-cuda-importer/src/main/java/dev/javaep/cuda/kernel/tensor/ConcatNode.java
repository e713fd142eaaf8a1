package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;

/** Concat: one strided copy per input into its region of the output. */
final class ConcatNode extends CudaNode {
    private final long axis;

    ConcatNode(CudaDevice device, long axis) {
        super(device, "Concat");
        this.axis = axis;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        DeviceInputs inputs = new DeviceInputs(op, context);
        TensorOps.Concatenation c = TensorOps.concat(inputs.shapesFrom(0), axis);
        Tensor y = context.output(0, c.outputShape());
        int size = y.elementType().byteSize();
        for (int i = 0; i < context.inputCount(); i++) {
            Launches.stridedCopy(kernels, stream, address(context.input(i)), address(y), size, c.parts().get(i));
        }
    }
}
