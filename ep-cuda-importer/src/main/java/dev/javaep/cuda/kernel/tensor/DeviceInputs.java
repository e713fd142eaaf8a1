package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.kernel.CudaKernelContext;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.TensorValue;
import java.nio.ByteBuffer;

/**
 * A JavaCuda step's inputs as its shape rule sees them: shapes of the device tensors, and the values of the
 * small inputs that decide output shapes, from {@link CudaKernelContext#hostInput} (a constant or a value the
 * group computed on the host: no copy). The same questions the JavaCpu kernels ask of theirs.
 */
final class DeviceInputs {
    private final String op;
    private final KernelContext context;

    DeviceInputs(String op, KernelContext context) {
        this.op = op;
        this.context = context;
    }

    boolean present(int input) {
        return input < context.inputCount() && context.input(input) != null;
    }

    Tensor tensor(int input) {
        Tensor t = input < context.inputCount() ? context.input(input) : null;
        if (t == null) {
            throw new IllegalArgumentException(op + ": input " + input + " is missing");
        }
        return t;
    }

    long[] shape(int input) {
        return tensor(input).shape();
    }

    long[][] shapesFrom(int from) {
        long[][] shapes = new long[context.inputCount() - from][];
        for (int i = 0; i < shapes.length; i++) {
            shapes[i] = shape(from + i);
        }
        return shapes;
    }

    /** Input {@code input}'s value in host memory, or null when it is omitted. */
    TensorValue host(int input) {
        if (!present(input)) {
            return null;
        }
        if (!(context instanceof CudaKernelContext cuda)) {
            throw new IllegalStateException(op + ": runs inside a JavaCuda compiled group, which gives host values");
        }
        return cuda.hostInput(input);
    }

    long[] longs(int input) {
        TensorValue v = host(input);
        return v == null ? null : v.longs();
    }

    long scalar(int input) {
        long[] values = longs(input);
        if (values == null || values.length != 1) {
            throw new IllegalArgumentException(op + ": input " + input + " must hold one value");
        }
        return values[0];
    }

    /** Input {@code input}'s values as doubles (float, double, float16 or integer elements), or null when omitted. */
    double[] doubles(int input) {
        TensorValue v = host(input);
        if (v == null) {
            return null;
        }
        int n = Math.toIntExact(v.elementCount());
        ByteBuffer b = v.data();
        double[] out = new double[n];
        switch (v.elementType()) {
            case FLOAT -> {
                for (int i = 0; i < n; i++) {
                    out[i] = b.getFloat(i * 4);
                }
            }
            case DOUBLE -> {
                for (int i = 0; i < n; i++) {
                    out[i] = b.getDouble(i * 8);
                }
            }
            case FLOAT16 -> {
                for (int i = 0; i < n; i++) {
                    out[i] = Float.float16ToFloat(b.getShort(i * 2));
                }
            }
            default -> {
                long[] values = v.longs();
                for (int i = 0; i < n; i++) {
                    out[i] = values[i];
                }
            }
        }
        return out;
    }
}
