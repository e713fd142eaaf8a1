package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;
import java.util.List;

/** Concat along {@code axis}: each input copied into its region of the output. */
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
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor y = outputs.get(0);
        TensorOps.Concatenation c = TensorOps.concat(shapes(InputValues.of(op(), inputs)), axis);
        Shapes.requireOutputShape(op(), outputs, c.outputShape());
        for (int i = 0; i < inputs.size(); i++) {
            Shapes.requireType(op(), "input " + i, inputs.get(i), y.elementType());
            StridedCopier.copy(inputs.get(i).data(), y.data(), y.elementType().byteSize(), c.parts().get(i));
        }
    }
}
