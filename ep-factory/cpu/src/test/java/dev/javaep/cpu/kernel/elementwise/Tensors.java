package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;

/** Host tensors of any element type for the elementwise kernel tests, at misaligned addresses ({@link TestTensors}). */
final class Tensors {
    private Tensors() {}

    /** A float-typed tensor (float16, float32, float64) holding {@code values} rounded to its type. */
    static HostTensor floats(Arena arena, ElementType type, double[] values, long... shape) {
        HostTensor t = TestTensors.misaligned(arena, type, shape);
        for (int i = 0; i < values.length; i++) {
            switch (type) {
                case FLOAT -> t.data().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, (float) values[i]);
                case FLOAT16 -> t.data().setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, Float.floatToFloat16((float) values[i]));
                case DOUBLE -> t.data().setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i, values[i]);
                default -> throw new IllegalArgumentException(type.toString());
            }
        }
        return t;
    }

    /** An integer or bool tensor holding the low bits of {@code values}. */
    static HostTensor integers(Arena arena, ElementType type, long[] values, long... shape) {
        return type == ElementType.BOOL ? retype(TestTensors.integers(arena, ElementType.UINT8, values, shape), type)
                : TestTensors.integers(arena, type, values, shape);
    }

    private static HostTensor retype(HostTensor t, ElementType type) {
        return new HostTensor(type, t.shape(), t.data());
    }

    /** The elements of a float-typed tensor as double. */
    static double[] toDoubles(HostTensor t) {
        double[] out = new double[(int) t.elementCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = switch (t.elementType()) {
                case FLOAT -> t.data().getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i);
                case FLOAT16 -> Float.float16ToFloat(t.data().getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i));
                case DOUBLE -> t.data().getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i);
                default -> throw new IllegalArgumentException(t.elementType().toString());
            };
        }
        return out;
    }

    /** The elements of an integer or bool tensor, widened as {@link TestTensors#toIntegers} does (bool as 0/1). */
    static long[] toLongs(HostTensor t) {
        return TestTensors.toIntegers(t.elementType() == ElementType.BOOL ? retype(t, ElementType.UINT8) : t);
    }

    /** {@code v} rounded to {@code type} (float16 through float32, as the kernels and ONNX Runtime round). */
    static double round(ElementType type, double v) {
        return switch (type) {
            case FLOAT -> (float) v;
            case FLOAT16 -> Float.float16ToFloat(Float.floatToFloat16((float) v));
            default -> v;
        };
    }
}
