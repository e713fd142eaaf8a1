package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Shape (dimensions {@code [start, end)} of the input's shape, opset 15; all of it before) and Size (the element
 * count, a scalar): int64 outputs that read only the input's shape, never its data, so the input may live in
 * any memory.
 */
record ShapeKernel(boolean countsElements, long start, Long end) implements TensorKernel.Unplanned {
    static ShapeKernel shape(long start, Long end) {
        return new ShapeKernel(false, start, end);
    }

    static ShapeKernel sizeOf() {
        return new ShapeKernel(true, 0, null);
    }

    @Override
    public String op() {
        return countsElements ? "Size" : "Shape";
    }

    @Override
    public long[][] outputShapes(InputValues inputs) {
        if (countsElements) {
            return new long[][] {{}};
        }
        int[] range = TensorOps.shapeSlice(inputs.shape(0).length, start, end);
        return new long[][] {{range[1] - range[0]}};
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        long[] x = Shapes.checked(inputs.get(0).shape());
        Tensor y = outputs.get(0);
        Shapes.requireType(op(), "output", y, ElementType.INT64);
        Shapes.requireOutputShapes(op(), outputs, outputShapes(InputValues.shapesOnly(op(), new long[][] {x})));
        if (countsElements) {
            y.data().set(ValueLayout.JAVA_LONG_UNALIGNED, 0, Shapes.elementCount(x));
            return;
        }
        int[] range = TensorOps.shapeSlice(x.length, start, end);
        for (int i = range[0]; i < range[1]; i++) {
            y.data().setAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, i - range[0], x[i]);
        }
    }
}
