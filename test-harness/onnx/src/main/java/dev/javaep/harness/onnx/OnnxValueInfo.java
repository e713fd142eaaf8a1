package dev.javaep.harness.onnx;

import dev.javaep.spi.ElementType;
import java.util.List;
import java.util.Objects;

/**
 * A graph input or output (ONNX ValueInfoProto).
 *
 * @param elementType the element type when the value is a tensor; {@link ElementType#UNDEFINED} otherwise
 * @param shape       the dimensions; {@code null} when the rank is unknown or the value is not a tensor
 * @param isTensor    whether the value is a dense tensor (not a sequence, map, optional or sparse tensor)
 */
public record OnnxValueInfo(String name, ElementType elementType, List<Dim> shape, boolean isTensor) {

    public OnnxValueInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(elementType, "elementType");
        shape = shape == null ? null : List.copyOf(shape);
    }

    /** A tensor of this type and shape. */
    public static OnnxValueInfo tensor(String name, ElementType elementType, Dim... shape) {
        return new OnnxValueInfo(name, elementType, List.of(shape), true);
    }
}
