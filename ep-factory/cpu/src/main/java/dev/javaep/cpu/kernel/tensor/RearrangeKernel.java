package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;
import java.util.List;
import java.util.function.Function;

/**
 * Transpose, Slice, Expand, Tile, DepthToSpace and SpaceToDepth: each output element is one input element,
 * found by a {@link TensorOps.StridedCopy} that {@code rule} derives from the shapes, attributes and index inputs
 * (planned once per input shapes and index values).
 */
record RearrangeKernel(String op, Function<InputValues, TensorOps.Rearrangement> rule) implements TensorKernel {

    @Override
    public long[][] outputShapes(InputValues inputs) {
        Shapes.checked(inputs.shape(0));
        return new long[][] {rule.apply(inputs).outputShape()};
    }

    @Override
    public Plan plan(InputValues inputs) {
        Shapes.checked(inputs.shape(0));
        TensorOps.Rearrangement r = rule.apply(inputs);
        long[][] shapes = {r.outputShape()};
        StridedCopier.Planned copy = new StridedCopier.Planned(List.of(r.copy()));
        return new ShapedPlan(shapes, inputs.valuesRead()) {
            @Override
            public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
                Tensor x = inputs.get(0);
                Tensor y = outputs.get(0);
                Shapes.requireType(op, "output", y, x.elementType());
                Shapes.requireOutputShape(op, 0, y, shapes[0]);
                copy.copy(0, x.data(), y.data(), x.elementType().byteSize());
            }
        };
    }
}
