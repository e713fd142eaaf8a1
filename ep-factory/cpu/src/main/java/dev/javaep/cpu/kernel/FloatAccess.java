package dev.javaep.cpu.kernel;

import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A float32 or float16 tensor's elements read and written as float: the normalisation and sampling kernels
 * compute in float (and double) whatever the storage, so float16 costs a conversion per element and no second
 * kernel.
 */
public record FloatAccess(MemorySegment data, boolean half) {
    private static final ValueLayout.OfFloat F32 = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfShort F16 = ValueLayout.JAVA_SHORT_UNALIGNED;

    /** {@code tensor}'s elements; {@code op} and {@code role} name it where it is of neither type. */
    public static FloatAccess of(String op, String role, Tensor tensor) {
        return switch (tensor.elementType()) {
            case FLOAT -> new FloatAccess(tensor.data(), false);
            case FLOAT16 -> new FloatAccess(tensor.data(), true);
            default -> throw new IllegalArgumentException(op + ": " + role + " is " + tensor.elementType()
                    + "; the kernel takes " + ElementType.FLOAT + " and " + ElementType.FLOAT16);
        };
    }

    public float get(long i) {
        return half ? Float.float16ToFloat(data.getAtIndex(F16, i)) : data.getAtIndex(F32, i);
    }

    public void set(long i, float value) {
        if (half) {
            data.setAtIndex(F16, i, Float.floatToFloat16(value));
        } else {
            data.setAtIndex(F32, i, value);
        }
    }
}
