package dev.javaep.cuda.kernel;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;

/** Relu, Sigmoid, Tanh: one thread per element (four per thread when aligned). */
final class ElementwiseUnaryNode extends CudaNode {
    private final String scalar;
    private final String vector;

    /** @param operation "relu", "sigmoid" or "tanh" */
    ElementwiseUnaryNode(CudaDevice device, String operation) {
        super(device, operation);
        this.scalar = "un_" + operation + "_f32";
        this.vector = "un_" + operation + "_f32_v4";
    }

    @Override
    void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor x = floatInput(context, 0);
        Tensor y = context.output(0, x.shape());
        long n = y.elementCount();
        if (n == 0) {
            return;
        }
        if (n % 4 == 0 && aligned16(address(x), address(y))) {
            launch1d(kernels, vector, n / 4, stream, KernelArguments.begin().u64(address(y)).u64(address(x)).u64(n / 4));
        } else {
            launch1d(kernels, scalar, n, stream, KernelArguments.begin().u64(address(y)).u64(address(x)).u64(n));
        }
    }
}
