package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.SplitRule;
import dev.javaep.spi.ops.TensorOps;

/** Split: one strided copy per output out of its region of the input (sizes where the {@link SplitRule} finds them). */
final class SplitNode extends CudaNode {
    private final SplitRule rule;

    SplitNode(CudaDevice device, SplitRule rule) {
        super(device, "Split");
        this.rule = rule;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor x = context.input(0);
        TensorOps.Splitting s = rule.splitting(new DeviceInputs(op, context), context.outputCount());
        int size = x.elementType().byteSize();
        for (int i = 0; i < context.outputCount(); i++) {
            Tensor y = context.output(i, s.outputShapes()[i]);
            if (y != null) {
                Launches.stridedCopy(kernels, stream, address(x), address(y), size, s.parts().get(i));
            }
        }
    }
}
