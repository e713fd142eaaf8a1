package dev.javaep.spi;

import java.util.Arrays;

/**
 * A graph value (input, output or intermediate) as ORT describes it.
 *
 * @param name        the value's name in the graph
 * @param elementType the element type when the value is a tensor; {@link ElementType#UNDEFINED} otherwise
 * @param shape       dimensions, -1 for a dynamic dimension; {@code null} when the rank is unknown
 * @param isTensor    whether the value is a tensor (not a sequence, map or optional)
 */
public record ValueInfo(String name, ElementType elementType, long[] shape, boolean isTensor) {

    /** Whether every dimension is known. */
    public boolean hasStaticShape() {
        return shape != null && Arrays.stream(shape).allMatch(d -> d >= 0);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ValueInfo v && name.equals(v.name) && elementType == v.elementType
                && Arrays.equals(shape, v.shape) && isTensor == v.isTensor;
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + Arrays.hashCode(shape);
    }

    @Override
    public String toString() {
        return name + ":" + elementType + (shape == null ? "[?]" : Arrays.toString(shape));
    }
}
