package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.util.List;
import java.util.function.Function;

/**
 * Reshape, Flatten, Squeeze and Unsqueeze: the same bytes under another shape, which {@code shapeRule} computes
 * from the input's shape and, where the op has them, the values of its shape or axes input.
 */
record ViewKernel(String op, Function<InputValues, long[]> shapeRule) implements TensorKernel {

    @Override
    public long[][] outputShapes(InputValues inputs) {
        Shapes.checked(inputs.shape(0));
        return new long[][] {shapeRule.apply(inputs)};
    }

    @Override
    public Plan plan(InputValues inputs) {
        long[][] shapes = outputShapes(inputs);
        return new ShapedPlan(shapes, inputs.valuesRead()) {
            @Override
            public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
                copy(inputs.get(0), outputs.get(0), shapes[0]);
            }
        };
    }

    /** {@code y = x}'s bytes, once y is checked to be of x's type and {@code shape}. */
    private void copy(Tensor x, Tensor y, long[] shape) {
        Shapes.requireType(op, "output", y, x.elementType());
        Shapes.requireOutputShape(op, 0, y, shape);
        // memmove semantics: an output that aliases the input is fine
        MemorySegment.copy(x.data(), 0, y.data(), 0, x.byteSize());
    }
}
