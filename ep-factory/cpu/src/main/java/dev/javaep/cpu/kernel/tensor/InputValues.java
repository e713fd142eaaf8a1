package dev.javaep.cpu.kernel.tensor;

import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.TensorValue;
import dev.javaep.spi.ops.ShapeInputs;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

/**
 * JavaCpu's {@link ShapeInputs}: the inputs themselves, whose bytes are on the host already, or shapes only, when
 * asking for a value fails with a message naming the input.
 */
final class InputValues extends ShapeInputs {
    private final long[][] shapes;
    private final List<? extends Tensor> tensors;
    /** Bit i: input i's value was read (for a plan's {@link dev.javaep.cpu.kernel.PlannedKernel.Plan#valueInputs()}). */
    private long valuesRead;

    private InputValues(String op, long[][] shapes, List<? extends Tensor> tensors) {
        super(op);
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

    /** The inputs whose values were read so far, bit i for input i. */
    long valuesRead() {
        return valuesRead;
    }

    int count() {
        return shapes.length;
    }

    @Override
    public boolean present(int input) {
        return input < shapes.length && shapes[input] != null;
    }

    @Override
    public long[] shape(int input) {
        if (!present(input)) {
            throw new IllegalArgumentException(op() + ": input " + input + " is missing");
        }
        return shapes[input];
    }

    /** All inputs' shapes from {@code from} on, an omitted one null. */
    @Override
    public long[][] shapesFrom(int from) {
        return Arrays.copyOfRange(shapes, from, shapes.length);
    }

    @Override
    protected TensorValue hostValue(int input) {
        if (tensors == null) {
            throw new IllegalArgumentException(op() + ": the output shape depends on the values of input " + input);
        }
        Tensor t = tensors.get(input);
        valuesRead |= 1L << input;
        return new TensorValue(t.elementType(), t.shape(), t.data().asByteBuffer());
    }

    /** Reads integer tensors on the host. */
    static final class IntegerValues {
        private IntegerValues() {}

        /** Element {@code i} of an int32 or int64 tensor. */
        static long at(MemorySegment data, ElementType type, long i) {
            return type == ElementType.INT64 ? data.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i)
                    : data.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
        }
    }
}
