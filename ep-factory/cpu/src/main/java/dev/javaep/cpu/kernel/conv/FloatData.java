package dev.javaep.cpu.kernel.conv;

import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Tensors as float32 for the convolution and pooling kernels, which compute in float: a float tensor is used in
 * place; float16 (and MaxPool's int8/uint8, whose values float holds exactly) are converted into a heap copy, and
 * results converted back. The conversion is one pass over data the kernels read many times.
 */
final class FloatData {
    static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfShort H = ValueLayout.JAVA_SHORT_UNALIGNED;

    private FloatData() {}

    /** The tensor's values as float32 elements (the tensor's own memory when it is float). */
    static MemorySegment read(Tensor t) {
        if (t.elementType() == ElementType.FLOAT) {
            return t.data();
        }
        int n = Math.toIntExact(t.elementCount());
        float[] values = new float[n];
        MemorySegment d = t.data();
        switch (t.elementType()) {
            case FLOAT16 -> {
                for (int i = 0; i < n; i++) {
                    values[i] = Float.float16ToFloat(d.getAtIndex(H, i));
                }
            }
            case INT8 -> {
                for (int i = 0; i < n; i++) {
                    values[i] = d.get(ValueLayout.JAVA_BYTE, i);
                }
            }
            case UINT8 -> {
                for (int i = 0; i < n; i++) {
                    values[i] = Byte.toUnsignedInt(d.get(ValueLayout.JAVA_BYTE, i));
                }
            }
            default -> throw new IllegalArgumentException("no float view of " + t.elementType());
        }
        return MemorySegment.ofArray(values);
    }

    /** Where a kernel writes float32 results for {@code t}: its own memory when float, else a heap buffer for {@link #write}. */
    static MemorySegment target(Tensor t) {
        return t.elementType() == ElementType.FLOAT ? t.data() : MemorySegment.ofArray(new float[Math.toIntExact(t.elementCount())]);
    }

    /** Stores {@code values} (from {@link #target}) into {@code t}, converting (rounding to nearest) when it is not float. */
    static void write(MemorySegment values, Tensor t) {
        if (t.elementType() == ElementType.FLOAT) {
            return;
        }
        int n = Math.toIntExact(t.elementCount());
        MemorySegment d = t.data();
        switch (t.elementType()) {
            case FLOAT16 -> {
                for (int i = 0; i < n; i++) {
                    d.setAtIndex(H, i, Float.floatToFloat16(values.getAtIndex(F, i)));
                }
            }
            case INT8, UINT8 -> {
                // MaxPool's results are input values, so they are whole numbers in range.
                for (int i = 0; i < n; i++) {
                    d.set(ValueLayout.JAVA_BYTE, i, (byte) (int) values.getAtIndex(F, i));
                }
            }
            default -> throw new IllegalArgumentException("no float view of " + t.elementType());
        }
    }
}
