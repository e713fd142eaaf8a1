package dev.javaep.cpu.kernel.tensor;

import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

/**
 * A kernel's inputs as its shape rule sees them: every input's shape, and the values of the small integer
 * inputs that decide the output's shape (Reshape's shape, Slice's starts, Pad's pads). Built from the inputs
 * themselves, or from shapes only, when asking for a value fails with a message naming the input.
 */
final class InputValues {
    private final String op;
    private final long[][] shapes;
    private final List<? extends Tensor> tensors;

    private InputValues(String op, long[][] shapes, List<? extends Tensor> tensors) {
        this.op = op;
        this.shapes = shapes;
        this.tensors = tensors;
    }

    static InputValues of(String op, List<? extends Tensor> inputs) {
        long[][] shapes = new long[inputs.size()][];
        for (int i = 0; i < shapes.length; i++) {
            shapes[i] = inputs.get(i) == null ? null : inputs.get(i).shape();
        }
        return new InputValues(op, shapes, inputs);
    }

    static InputValues shapesOnly(String op, long[][] shapes) {
        return new InputValues(op, shapes, null);
    }

    int count() {
        return shapes.length;
    }

    boolean present(int input) {
        return input < shapes.length && shapes[input] != null;
    }

    /** Input {@code input}'s shape; it must be present. */
    long[] shape(int input) {
        if (!present(input)) {
            throw new IllegalArgumentException(op + ": input " + input + " is missing");
        }
        return shapes[input];
    }

    /** All present inputs' shapes from {@code from} on (Concat's). */
    long[][] shapesFrom(int from) {
        return Arrays.copyOfRange(shapes, from, shapes.length);
    }

    /** Input {@code input}'s values as int64 (from int64, int32, int16, int8 or uint8), or null when it is omitted. */
    long[] longs(int input) {
        if (!present(input)) {
            return null;
        }
        if (tensors == null) {
            throw new IllegalArgumentException(op + ": the output shape depends on the values of input " + input);
        }
        return IntegerValues.read(op, tensors.get(input));
    }

    /** Input {@code input}'s only value (a scalar or a one-element tensor) as int64. */
    long scalar(int input) {
        long[] values = longs(input);
        if (values == null || values.length != 1) {
            throw new IllegalArgumentException(op + ": input " + input + " must hold one value");
        }
        return values[0];
    }

    /** Input {@code input}'s values as doubles (floating-point or integer elements), or null when it is omitted. */
    double[] doubles(int input) {
        if (!present(input)) {
            return null;
        }
        if (tensors == null) {
            throw new IllegalArgumentException(op + ": the output shape depends on the values of input " + input);
        }
        Tensor t = tensors.get(input);
        int n = Math.toIntExact(t.elementCount());
        MemorySegment data = t.data();
        double[] out = new double[n];
        switch (t.elementType()) {
            case FLOAT -> {
                for (int i = 0; i < n; i++) {
                    out[i] = data.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i);
                }
            }
            case DOUBLE -> {
                for (int i = 0; i < n; i++) {
                    out[i] = data.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i);
                }
            }
            case FLOAT16 -> {
                for (int i = 0; i < n; i++) {
                    out[i] = Float.float16ToFloat(data.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i));
                }
            }
            default -> {
                long[] values = IntegerValues.read(op, t);
                for (int i = 0; i < n; i++) {
                    out[i] = values[i];
                }
            }
        }
        return out;
    }

    /** Reads integer tensors on the host. */
    static final class IntegerValues {
        private IntegerValues() {}

        static long[] read(String op, Tensor t) {
            int n = Math.toIntExact(t.elementCount());
            MemorySegment data = t.data();
            long[] out = new long[n];
            for (int i = 0; i < n; i++) {
                out[i] = switch (t.elementType()) {
                    case INT64 -> data.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
                    case INT32 -> data.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
                    case INT16 -> data.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i);
                    case INT8 -> data.get(ValueLayout.JAVA_BYTE, i);
                    case UINT8 -> data.get(ValueLayout.JAVA_BYTE, i) & 0xFF;
                    default -> throw new IllegalArgumentException(op + ": " + t.elementType() + " values read as integers");
                };
            }
            return out;
        }

        /** Element {@code i} of an int32 or int64 tensor. */
        static long at(MemorySegment data, ElementType type, long i) {
            return type == ElementType.INT64 ? data.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i)
                    : data.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
        }
    }
}
