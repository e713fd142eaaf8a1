package dev.javaep.spi;

import java.util.Arrays;

/**
 * A graph value (input, output, initializer or intermediate) as ORT describes it.
 *
 * @param name        the value's name in the graph
 * @param elementType the element type when the value is a tensor; {@link ElementType#UNDEFINED} otherwise
 * @param shape       dimensions, -1 for a dynamic (symbolic or unknown) dimension; {@code null} when the rank is unknown
 * @param isTensor    whether the value is a tensor (not a sequence, map or optional)
 * @param constant    whether the value is a constant initializer (weights, or shapes/axes given as inputs)
 * @param value       the constant's data when it is small enough to copy at GetCapability time (at most
 *                    {@link #COPIED_CONSTANT_BYTES}); {@code null} for larger constants, which ORT still
 *                    passes to the compiled node as inputs at Compute
 */
public record ValueInfo(String name, ElementType elementType, long[] shape, boolean isTensor, boolean constant,
                        TensorValue value) {
    /** Constant initializers up to this size are copied into {@link #value()}: enough for any shape or axes. */
    public static final long COPIED_CONSTANT_BYTES = 64 * 1024;

    /** A value that is not a constant initializer. */
    public ValueInfo(String name, ElementType elementType, long[] shape, boolean isTensor) {
        this(name, elementType, shape, isTensor, false, null);
    }

    /** Whether every dimension is known. */
    public boolean hasStaticShape() {
        return shape != null && Arrays.stream(shape).allMatch(d -> d >= 0);
    }

    /** The rank when known, else -1. */
    public int rank() {
        return shape == null ? -1 : shape.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ValueInfo v && name.equals(v.name) && elementType == v.elementType
                && Arrays.equals(shape, v.shape) && isTensor == v.isTensor && constant == v.constant;
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + Arrays.hashCode(shape);
    }

    @Override
    public String toString() {
        return name + ":" + elementType + (shape == null ? "[?]" : Arrays.toString(shape)) + (constant ? " (constant)" : "");
    }
}
