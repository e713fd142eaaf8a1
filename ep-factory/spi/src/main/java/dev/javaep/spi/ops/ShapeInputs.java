package dev.javaep.spi.ops;

import dev.javaep.spi.ElementType;
import dev.javaep.spi.TensorValue;
import java.nio.ByteBuffer;

/**
 * A kernel's inputs as its shape rule sees them: every input's shape, and the values of the small inputs that decide
 * the output's shape (Reshape's shape, Slice's starts, Pad's pads, Resize's scales). JavaCpu's tensor kernels and
 * JavaCuda's ask the same questions; each backend says only where an input's shape and host bytes are.
 */
public abstract class ShapeInputs {
    private final String op;

    protected ShapeInputs(String op) {
        this.op = op;
    }

    /** The op whose inputs these are, for messages. */
    public final String op() {
        return op;
    }

    /** Whether input {@code input} is given (not omitted, not beyond the node's inputs). */
    public abstract boolean present(int input);

    /** Input {@code input}'s shape; it must be present. */
    public abstract long[] shape(int input);

    /** The shapes of the inputs from {@code from} on (Concat's). */
    public abstract long[][] shapesFrom(int from);

    /** The element type and little-endian bytes of present input {@code input}, readable on the host. */
    protected abstract TensorValue hostValue(int input);

    /** Input {@code input}'s values as int64 (from int64, int32, int16, int8 or uint8), or null when it is omitted. */
    public long[] longs(int input) {
        if (!present(input)) {
            return null;
        }
        TensorValue v = hostValue(input);
        return switch (v.elementType()) {
            case INT64, INT32, INT16, INT8, UINT8 -> v.longs();
            default -> throw new IllegalArgumentException(op + ": " + v.elementType() + " values read as integers");
        };
    }

    /** Input {@code input}'s only value (a scalar or a one-element tensor) as int64. */
    public long scalar(int input) {
        long[] values = longs(input);
        if (values == null || values.length != 1) {
            throw new IllegalArgumentException(op + ": input " + input + " must hold one value");
        }
        return values[0];
    }

    /** Input {@code input}'s values as doubles (float, double, float16 or integer elements), or null when omitted. */
    public double[] doubles(int input) {
        if (!present(input)) {
            return null;
        }
        TensorValue v = hostValue(input);
        ElementType type = v.elementType();
        if (type != ElementType.FLOAT && type != ElementType.DOUBLE && type != ElementType.FLOAT16) {
            long[] values = longs(input);
            double[] out = new double[values.length];
            for (int i = 0; i < out.length; i++) {
                out[i] = values[i];
            }
            return out;
        }
        ByteBuffer b = v.data();
        double[] out = new double[Math.toIntExact(v.elementCount())];
        for (int i = 0; i < out.length; i++) {
            out[i] = switch (type) {
                case FLOAT -> b.getFloat(i * Float.BYTES);
                case DOUBLE -> b.getDouble(i * Double.BYTES);
                default -> Float.float16ToFloat(b.getShort(i * Short.BYTES));
            };
        }
        return out;
    }
}
