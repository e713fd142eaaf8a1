package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.SplitRule;
import dev.javaep.spi.ops.TensorOps;
import java.util.List;

/**
 * Split into {@code outputs} parts along the axis, with the part sizes where {@code rule} finds them (planned once per
 * input shape and split values).
 */
record SplitKernel(SplitRule rule, int outputs) implements TensorKernel {
    @Override
    public String op() {
        return "Split";
    }

    @Override
    public long[][] outputShapes(InputValues inputs) {
        Shapes.checked(inputs.shape(0));
        return rule.splitting(inputs, outputs).outputShapes();
    }

    @Override
    public Plan plan(InputValues inputs) {
        Shapes.checked(inputs.shape(0));
        TensorOps.Splitting s = rule.splitting(inputs, outputs);
        StridedCopier.Planned parts = new StridedCopier.Planned(s.parts());
        return new ShapedPlan(s.outputShapes(), inputs.valuesRead()) {
            @Override
            public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
                Tensor x = inputs.get(0);
                Shapes.requireOutputShapes(op(), outputs, outputShapes());
                for (int i = 0; i < outputs.size(); i++) {
                    Tensor y = outputs.get(i);
                    if (y.elementType() != x.elementType()) {
                        Shapes.requireType(op(), "output " + i, y, x.elementType()); // throws, naming the output
                    }
                    parts.copy(i, x.data(), y.data(), x.elementType().byteSize());
                }
            }
        };
    }
}
