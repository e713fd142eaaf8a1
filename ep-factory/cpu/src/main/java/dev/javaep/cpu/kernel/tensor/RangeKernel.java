package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Range: {@code start + i·delta} for i in [0, max(ceil((limit - start) / delta), 0)), from three scalar inputs;
 * integers in exact arithmetic, float and double computed in double with one rounding (a fused multiply-add).
 */
record RangeKernel(ElementType elementType) implements TensorKernel.Unplanned {
    @Override
    public String op() {
        return "Range";
    }

    private boolean integral() {
        return elementType != ElementType.FLOAT && elementType != ElementType.DOUBLE;
    }

    @Override
    public long[][] outputShapes(InputValues inputs) {
        long n;
        if (integral()) {
            n = TensorOps.rangeCount(inputs.scalar(0), inputs.scalar(1), inputs.scalar(2));
        } else {
            n = TensorOps.rangeCount(scalar(inputs, 0), scalar(inputs, 1), scalar(inputs, 2));
        }
        return new long[][] {{n}};
    }

    private static double scalar(InputValues inputs, int i) {
        double[] v = inputs.doubles(i);
        if (v == null || v.length != 1) {
            throw new IllegalArgumentException("Range: input " + i + " must hold one value");
        }
        return v[0];
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor y = outputs.get(0);
        for (int i = 0; i < 3; i++) {
            Shapes.requireType(op(), "input " + i, inputs.get(i), elementType);
        }
        Shapes.requireType(op(), "output", y, elementType);
        InputValues values = InputValues.of(op(), inputs);
        Shapes.requireOutputShapes(op(), outputs, outputShapes(values));
        MemorySegment out = y.data();
        long n = y.elementCount();
        if (integral()) {
            long start = values.scalar(0);
            long delta = values.scalar(2);
            for (long i = 0; i < n; i++) {
                long v = start + i * delta;
                switch (elementType) {
                    case INT16 -> out.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, (short) v);
                    case INT32 -> out.setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, i, (int) v);
                    default -> out.setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i, v);
                }
            }
        } else {
            double start = scalar(values, 0);
            double delta = scalar(values, 2);
            for (long i = 0; i < n; i++) {
                double v = Math.fma(i, delta, start); // one rounding, as JavaCuda's kernel computes it
                if (elementType == ElementType.FLOAT) {
                    out.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, (float) v);
                } else {
                    out.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i, v);
                }
            }
        }
    }
}
