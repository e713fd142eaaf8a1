package dev.javaep.host;

import dev.javaep.spi.ElementType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;

/** A tensor's contents on the Java heap: element type, shape, little-endian element bytes. */
public record TensorData(ElementType elementType, long[] shape, byte[] data) {

    public static TensorData ofFloats(long[] shape, float... values) {
        ByteBuffer buffer = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        buffer.asFloatBuffer().put(values);
        return new TensorData(ElementType.FLOAT, shape.clone(), buffer.array());
    }

    public float[] floats() {
        if (elementType != ElementType.FLOAT) {
            throw new IllegalStateException("tensor is " + elementType + ", not FLOAT");
        }
        float[] values = new float[data.length / 4];
        ByteBuffer.wrap(data).order(ByteOrder.LITTLE_ENDIAN).asFloatBuffer().get(values);
        return values;
    }

    public long elementCount() {
        return Arrays.stream(shape).reduce(1, Math::multiplyExact);
    }

    @Override
    public String toString() {
        return elementType + Arrays.toString(shape);
    }
}
