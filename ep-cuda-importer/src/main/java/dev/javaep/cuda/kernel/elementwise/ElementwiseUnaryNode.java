package dev.javaep.cuda.kernel.elementwise;

import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.ptx.CudaKernel;
import dev.javaep.cuda.kernel.ptx.CudaKernel.UnaryOp;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;

/** Relu, Sigmoid, Tanh: one thread per element (four per thread when aligned). */
public final class ElementwiseUnaryNode extends CudaNode {
    private final CudaKernel scalar;
    private final CudaKernel vector;

    ElementwiseUnaryNode(CudaDevice device, UnaryOp operation) {
        super(device, operation.opType());
        this.scalar = CudaKernel.unary(operation, false);
        this.vector = CudaKernel.unary(operation, true);
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
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
