package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;
import dev.javaep.spi.ops.TensorOps.ScatterReduction;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * ScatterND: the output is the data with each update slice written (or, with a reduction, combined) at the
 * data offset its index tuple names, tuples in order (so a repeated index is applied in order, the last
 * write winning without a reduction). Every index is checked before anything is written.
 */
record ScatterNDKernel(ScatterReduction reduction, ElementType elementType) implements TensorKernel.Unplanned {
    /** The element types a reduction (add, mul, max, min) computes on. */
    static final Set<ElementType> REDUCIBLE = Set.copyOf(EnumSet.of(ElementType.FLOAT, ElementType.DOUBLE, ElementType.FLOAT16,
            ElementType.BFLOAT16, ElementType.INT8, ElementType.INT16, ElementType.INT32, ElementType.INT64,
            ElementType.UINT8, ElementType.UINT16, ElementType.UINT32, ElementType.UINT64));

    ScatterNDKernel {
        if (reduction != ScatterReduction.NONE && !REDUCIBLE.contains(elementType)) {
            throw new IllegalArgumentException("ScatterND: reduction " + reduction + " is not implemented for " + elementType);
        }
    }

    @Override
    public String op() {
        return "ScatterND";
    }

    @Override
    public long[][] outputShapes(InputValues inputs) {
        long[] data = Shapes.checked(inputs.shape(0));
        TensorOps.scatterND(data, Shapes.checked(inputs.shape(1)), Shapes.checked(inputs.shape(2)));
        return new long[][] {data.clone()};
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor data = inputs.get(0);
        Tensor indices = inputs.get(1);
        Tensor updates = inputs.get(2);
        Tensor y = outputs.get(0);
        Shapes.requireType(op(), "data", data, elementType);
        Shapes.requireType(op(), "updates", updates, elementType);
        Shapes.requireType(op(), "output", y, elementType);
        TensorOps.Scatter s = TensorOps.scatterND(data.shape(), indices.shape(), updates.shape());
        Shapes.requireOutputShape(op(), outputs, data.shape());
        int depth = (int) s.depth();
        long[] offsets = new long[Math.toIntExact(s.tuples())];
        for (int n = 0; n < offsets.length; n++) {
            long offset = 0;
            for (int j = 0; j < depth; j++) {
                long v = InputValues.IntegerValues.at(indices.data(), indices.elementType(), (long) n * depth + j);
                offset += TensorOps.index(op(), v, s.dataShape()[j]) * s.strides()[j];
            }
            offsets[n] = offset;
        }
        MemorySegment.copy(data.data(), 0, y.data(), 0, data.byteSize());
        int size = elementType.byteSize();
        long slice = s.sliceSize();
        for (int n = 0; n < offsets.length; n++) {
            long target = offsets[n];
            long source = n * slice;
            if (reduction == ScatterReduction.NONE) {
                MemorySegment.copy(updates.data(), source * size, y.data(), target * size, slice * size);
            } else {
                for (long e = 0; e < slice; e++) {
                    combine(y.data(), target + e, updates.data(), source + e);
                }
            }
        }
    }

    private void combine(MemorySegment out, long o, MemorySegment updates, long u) {
        switch (elementType) {
            case FLOAT -> out.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, o, (float) reduce(
                    out.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, o), updates.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, u)));
            case DOUBLE -> out.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, o, reduce(
                    out.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, o), updates.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, u)));
            case FLOAT16 -> out.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, o, Float.floatToFloat16((float) reduce(
                    Float.float16ToFloat(out.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, o)),
                    Float.float16ToFloat(updates.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, u)))));
            case BFLOAT16 -> out.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, o, TensorOps.bfloat16((float) reduce(
                    bfloat16ToFloat(out.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, o)),
                    bfloat16ToFloat(updates.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, u)))));
            default -> {
                long a = integer(out, o);
                long b = integer(updates, u);
                setInteger(out, o, reduceIntegers(a, b));
            }
        }
    }

    private static float bfloat16ToFloat(short bits) {
        return Float.intBitsToFloat((bits & 0xFFFF) << 16);
    }

    private double reduce(double a, double b) {
        return switch (reduction) {
            case ADD -> a + b;
            case MUL -> a * b;
            case MAX -> Math.max(a, b);
            case MIN -> Math.min(a, b);
            case NONE -> b;
        };
    }

    private long reduceIntegers(long a, long b) {
        boolean unsigned = elementType == ElementType.UINT64;
        return switch (reduction) {
            case ADD -> a + b;
            case MUL -> a * b;
            case MAX -> (unsigned ? Long.compareUnsigned(a, b) : Long.compare(a, b)) >= 0 ? a : b;
            case MIN -> (unsigned ? Long.compareUnsigned(a, b) : Long.compare(a, b)) <= 0 ? a : b;
            case NONE -> b;
        };
    }

    /** An integer element widened: sign-extended for signed types, zero-extended for unsigned ones. */
    private long integer(MemorySegment s, long i) {
        return switch (elementType) {
            case INT8 -> s.get(ValueLayout.JAVA_BYTE, i);
            case UINT8 -> s.get(ValueLayout.JAVA_BYTE, i) & 0xFF;
            case INT16 -> s.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i);
            case UINT16 -> s.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i) & 0xFFFF;
            case INT32 -> s.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i);
            case UINT32 -> s.getAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i) & 0xFFFFFFFFL;
            default -> s.getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i);
        };
    }

    private void setInteger(MemorySegment s, long i, long v) {
        switch (elementType.byteSize()) {
            case 1 -> s.set(ValueLayout.JAVA_BYTE, i, (byte) v);
            case 2 -> s.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) v);
            case 4 -> s.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, (int) v);
            default -> s.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, v);
        }
    }
}
