package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import java.util.function.Function;

/**
 * Reshape, Flatten, Squeeze, Unsqueeze: the input's bytes under the shape {@code shapeRule} gives (from the
 * shape or axes input's host value), one device-to-device copy on the Run's stream.
 */
final class ViewNode extends CudaNode {
    private final Function<DeviceInputs, long[]> shapeRule;

    ViewNode(CudaDevice device, String op, Function<DeviceInputs, long[]> shapeRule) {
        super(device, op);
        this.shapeRule = shapeRule;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor x = context.input(0);
        Tensor y = context.output(0, shapeRule.apply(new DeviceInputs(op, context)));
        long bytes = x.byteSize();
        if (bytes > 0 && address(x) != address(y)) {
            kernels.driver().memcpyDtoDAsync(address(y), address(x), bytes, stream);
        }
    }
}
