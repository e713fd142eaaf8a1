package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;

/** Identity: a device-to-device copy on the Run's stream, any fixed-size element type. */
public final class IdentityNode extends CudaNode {
    IdentityNode(CudaDevice device) {
        super(device, "Identity");
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor x = context.input(0);
        Tensor y = context.output(0, x.shape());
        long bytes = x.byteSize();
        if (bytes > 0 && address(x) != address(y)) {
            kernels.driver().memcpyDtoDAsync(address(y), address(x), bytes, stream);
        }
    }
}
