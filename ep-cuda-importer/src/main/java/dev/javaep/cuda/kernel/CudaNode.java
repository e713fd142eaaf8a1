package dev.javaep.cuda.kernel;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.ptx.CudaKernel;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import java.util.Arrays;

/**
 * A compiled node that queues its work on the Run's stream ({@link KernelContext#computeStream()})
 * and returns: ORT orders what follows on the same stream and synchronises at the end of the Run.
 */
public abstract class CudaNode implements CompiledNode {
    protected final CudaDevice device;
    protected final String op;

    protected CudaNode(CudaDevice device, String op) {
        this.device = device;
        this.op = op;
    }

    @Override
    public final void compute(KernelContext context) {
        device.makeCurrent();
        run(context, device.kernels(), context.computeStream());
    }

    protected abstract void run(KernelContext context, CudaKernelLibrary kernels, long stream);

    /** A grid-stride 1-D kernel over {@code work} items. */
    protected static void launch1d(CudaKernelLibrary kernels, CudaKernel kernel, long work, long stream, KernelArguments args) {
        kernels.launch(kernel, kernels.linear(kernel, work), stream, args);
    }

    protected Tensor floatInput(KernelContext context, int index) {
        return typedInput(context, index, ElementType.FLOAT);
    }

    /** Input {@code index}, present and of the {@code type} the node's kernel was built for. */
    protected Tensor typedInput(KernelContext context, int index, ElementType type) {
        Tensor t = context.input(index);
        if (t == null) {
            throw new IllegalArgumentException(op + ": input " + index + " is missing");
        }
        if (t.elementType() != type) {
            throw new IllegalArgumentException(op + ": input " + index + " is " + t.elementType()
                    + ", the kernel was built for " + type);
        }
        return t;
    }

    protected static long address(Tensor t) {
        return t.data().address();
    }

    /** Whether both addresses allow float4 access (no varargs array on the launch path). */
    protected static boolean aligned16(long a, long b) {
        return ((a | b) & 15) == 0;
    }

    /** Whether the three addresses allow float4 access. */
    protected static boolean aligned16(long a, long b, long c) {
        return ((a | b | c) & 15) == 0;
    }

    /** Whether every address allows float4 access. */
    protected static boolean aligned16(long... addresses) {
        for (long a : addresses) {
            if ((a & 15) != 0) {
                return false;
            }
        }
        return true;
    }

    protected static String shape(long[] shape) {
        return Arrays.toString(shape);
    }
}
