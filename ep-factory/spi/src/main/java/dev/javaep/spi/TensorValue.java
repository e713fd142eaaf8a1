package dev.javaep.spi;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * A constant tensor copied out of the model (an initializer, or a TENSOR attribute): element type,
 * shape and little-endian bytes. What a kernel reads at compile time: axes, shapes, pads, scales.
 */
public record TensorValue(ElementType elementType, long[] shape, ByteBuffer data) {
    public TensorValue {
        shape = shape.clone();
        data = data.asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }

    public long elementCount() {
        long n = 1;
        for (long d : shape) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    @Override
    public long[] shape() {
        return shape.clone();
    }

    /** The values as int64: INT64, INT32, INT16, INT8, UINT8 and BOOL widen; anything else throws. */
    public long[] longs() {
        int n = Math.toIntExact(elementCount());
        long[] out = new long[n];
        ByteBuffer b = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            out[i] = switch (elementType) {
                case INT64 -> b.getLong(i * 8);
                case INT32 -> b.getInt(i * 4);
                case INT16 -> b.getShort(i * 2);
                case INT8 -> b.get(i);
                case UINT8, BOOL -> b.get(i) & 0xFF;
                default -> throw new IllegalStateException(elementType + " tensor read as integers");
            };
        }
        return out;
    }

    /** The values as float32: FLOAT and DOUBLE (narrowed); anything else throws. */
    public float[] floats() {
        int n = Math.toIntExact(elementCount());
        float[] out = new float[n];
        ByteBuffer b = data.duplicate().order(ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i < n; i++) {
            out[i] = switch (elementType) {
                case FLOAT -> b.getFloat(i * 4);
                case DOUBLE -> (float) b.getDouble(i * 8);
                default -> throw new IllegalStateException(elementType + " tensor read as floats");
            };
        }
        return out;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof TensorValue t && elementType == t.elementType && Arrays.equals(shape, t.shape)
                && data.equals(t.data);
    }

    @Override
    public int hashCode() {
        return elementType.hashCode() * 31 + Arrays.hashCode(shape);
    }

    @Override
    public String toString() {
        return "TensorValue[" + elementType + Arrays.toString(shape) + "]";
    }
}
