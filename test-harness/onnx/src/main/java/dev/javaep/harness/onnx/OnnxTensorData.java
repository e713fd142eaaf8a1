package dev.javaep.harness.onnx;

import dev.javaep.spi.ElementType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Arrays;
import java.util.Objects;

/**
 * A tensor's contents as ONNX files carry them, normalized to one representation: the raw
 * little-endian bytes of the elements, in row-major order (the layout of TensorProto.raw_data and
 * of ORT's own buffers). 4-bit types hold two elements per byte, low nibble first.
 *
 * <p>{@code dims} is copied; {@code data} is not (tensors can be large), so do not modify it
 * after handing it over.
 *
 * @param name the tensor's name; empty when the file gives none
 */
public record OnnxTensorData(String name, ElementType elementType, long[] dims, byte[] data) {

    public OnnxTensorData {
        name = name == null ? "" : name;
        Objects.requireNonNull(elementType, "elementType");
        Objects.requireNonNull(data, "data");
        dims = dims.clone();
        long count = 1;
        for (long d : dims) {
            if (d < 0) {
                throw new IllegalArgumentException("tensor '" + name + "' has a negative dimension: " + Arrays.toString(dims));
            }
            count = Math.multiplyExact(count, d);
        }
        long expected = expectedByteCount(elementType, count);
        if (expected >= 0 && data.length != expected) {
            throw new IllegalArgumentException("tensor '" + name + "' (" + elementType + Arrays.toString(dims) + ") needs "
                    + expected + " bytes of data but has " + data.length);
        }
    }

    /** A float32 tensor holding a copy of {@code values}. */
    public static OnnxTensorData ofFloats(String name, float[] values, long... dims) {
        ByteBuffer bytes = ByteBuffer.allocate(values.length * Float.BYTES).order(ByteOrder.LITTLE_ENDIAN);
        bytes.asFloatBuffer().put(values);
        return new OnnxTensorData(name, ElementType.FLOAT, dims, bytes.array());
    }

    public long elementCount() {
        long count = 1;
        for (long d : dims) {
            count *= d;
        }
        return count;
    }

    /** The data as a read-only little-endian buffer (use its typed views to read elements). */
    public ByteBuffer buffer() {
        return ByteBuffer.wrap(data).asReadOnlyBuffer().order(ByteOrder.LITTLE_ENDIAN);
    }

    /** The elements of a float32 tensor. */
    public float[] toFloatArray() {
        if (elementType != ElementType.FLOAT) {
            throw new IllegalStateException("tensor '" + name + "' is " + elementType + ", not FLOAT");
        }
        float[] values = new float[data.length / Float.BYTES];
        buffer().asFloatBuffer().get(values);
        return values;
    }

    /** Bytes needed for {@code count} elements; -1 when the type has no fixed size (string). */
    static long expectedByteCount(ElementType type, long count) {
        return switch (type) {
            case UINT4, INT4, FLOAT4E2M1 -> (count + 1) / 2;
            case STRING, UNDEFINED -> -1;
            default -> Math.multiplyExact(count, type.byteSize());
        };
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof OnnxTensorData t && name.equals(t.name) && elementType == t.elementType
                && Arrays.equals(dims, t.dims) && Arrays.equals(data, t.data);
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, elementType, Arrays.hashCode(dims), Arrays.hashCode(data));
    }

    @Override
    public String toString() {
        return "OnnxTensorData[" + name + ": " + elementType + Arrays.toString(dims) + ", " + data.length + " bytes]";
    }
}
