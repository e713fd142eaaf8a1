package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.kernel.CudaKernelContext;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.TensorValue;
import dev.javaep.spi.ops.ShapeInputs;

/**
 * JavaCuda's {@link ShapeInputs}: shapes of the device tensors, and the values of the small inputs that decide output
 * shapes from {@link CudaKernelContext#hostInput} (a constant or a value the group computed on the host: no copy).
 */
final class DeviceInputs extends ShapeInputs {
    private final KernelContext context;

    DeviceInputs(String op, KernelContext context) {
        super(op);
        this.context = context;
    }

    @Override
    public boolean present(int input) {
        return input < context.inputCount() && context.input(input) != null;
    }

    Tensor tensor(int input) {
        Tensor t = input < context.inputCount() ? context.input(input) : null;
        if (t == null) {
            throw new IllegalArgumentException(op() + ": input " + input + " is missing");
        }
        return t;
    }

    @Override
    public long[] shape(int input) {
        return tensor(input).shape();
    }

    @Override
    public long[][] shapesFrom(int from) {
        long[][] shapes = new long[context.inputCount() - from][];
        for (int i = 0; i < shapes.length; i++) {
            shapes[i] = shape(from + i);
        }
        return shapes;
    }

    /** Input {@code input}'s value in host memory, or null when it is omitted. */
    TensorValue host(int input) {
        return present(input) ? hostValue(input) : null;
    }

    @Override
    protected TensorValue hostValue(int input) {
        if (!(context instanceof CudaKernelContext cuda)) {
            throw new IllegalStateException(op() + ": runs inside a JavaCuda compiled group, which gives host values");
        }
        return cuda.hostInput(input);
    }
}
