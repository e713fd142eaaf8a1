package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;

/** Split: one strided copy per output out of its region of the input (sizes as the JavaCpu {@code SplitKernel} reads them). */
final class SplitNode extends CudaNode {
    private final long axis;
    private final long[] splitAttribute;
    private final boolean splitInput;
    private final Long numOutputs;

    SplitNode(CudaDevice device, long axis, long[] splitAttribute, boolean splitInput, Long numOutputs) {
        super(device, "Split");
        this.axis = axis;
        this.splitAttribute = splitAttribute;
        this.splitInput = splitInput;
        this.numOutputs = numOutputs;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        DeviceInputs inputs = new DeviceInputs(op, context);
        Tensor x = context.input(0);
        long[] shape = x.shape();
        long[] split = splitAttribute;
        if (split == null && splitInput && inputs.present(1)) {
            double[] values = inputs.doubles(1);
            split = new long[values.length];
            for (int i = 0; i < values.length; i++) {
                split[i] = (long) values[i];
            }
        }
        int a = TensorOps.axis(op, axis, shape.length);
        TensorOps.Splitting s = TensorOps.split(shape, a, TensorOps.splitSizes(shape[a], split, numOutputs, context.outputCount()));
        int size = x.elementType().byteSize();
        for (int i = 0; i < context.outputCount(); i++) {
            Tensor y = context.output(i, s.outputShapes()[i]);
            if (y != null) {
                Launches.stridedCopy(kernels, stream, address(x), address(y), size, s.parts().get(i));
            }
        }
    }
}
