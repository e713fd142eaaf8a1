package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;
import java.util.List;

/** Concat along {@code axis}: each input copied into its region of the output (planned once per input shapes). */
record ConcatKernel(long axis) implements TensorKernel {
    @Override
    public String op() {
        return "Concat";
    }

    @Override
    public long[][] outputShapes(InputValues inputs) {
        return new long[][] {TensorOps.concat(shapes(inputs), axis).outputShape()};
    }

    private static long[][] shapes(InputValues inputs) {
        long[][] shapes = inputs.shapesFrom(0);
        for (int i = 0; i < shapes.length; i++) {
            Shapes.checked(inputs.shape(i));
        }
        return shapes;
    }

    @Override
    public Plan plan(InputValues inputs) {
        TensorOps.Concatenation c = TensorOps.concat(shapes(inputs), axis);
        long[][] shapes = {c.outputShape()};
        StridedCopier.Planned parts = new StridedCopier.Planned(c.parts());
        return new ShapedPlan(shapes) {
            @Override
            public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
                Tensor y = outputs.get(0);
                Shapes.requireOutputShape(op(), outputs, shapes[0]);
                for (int i = 0; i < inputs.size(); i++) {
                    Tensor x = inputs.get(i);
                    if (x.elementType() != y.elementType()) {
                        Shapes.requireType(op(), "input " + i, x, y.elementType()); // throws, naming the input
                    }
                    parts.copy(i, x.data(), y.data(), y.elementType().byteSize());
                }
            }
        };
    }
}
