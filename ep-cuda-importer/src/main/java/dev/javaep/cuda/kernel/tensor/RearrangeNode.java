package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;
import java.util.function.Function;

/** Transpose, Slice, Expand, Tile, DepthToSpace, SpaceToDepth: one strided copy, from the shared rule. */
final class RearrangeNode extends CudaNode {
    private final Function<DeviceInputs, TensorOps.Rearrangement> rule;

    RearrangeNode(CudaDevice device, String op, Function<DeviceInputs, TensorOps.Rearrangement> rule) {
        super(device, op);
        this.rule = rule;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor x = context.input(0);
        TensorOps.Rearrangement r = rule.apply(new DeviceInputs(op, context));
        Tensor y = context.output(0, r.outputShape());
        Launches.stridedCopy(kernels, stream, address(x), address(y), x.elementType().byteSize(), r.copy());
    }
}
