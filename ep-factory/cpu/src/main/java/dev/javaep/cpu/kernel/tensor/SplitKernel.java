package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;
import java.util.List;

/**
 * Split along {@code axis} into {@code outputs} parts: sizes from the {@code split} attribute, else from the
 * split input (index 1) when {@code splitInput}, else {@code numOutputs} ceil-sized parts, else equal parts.
 */
record SplitKernel(long axis, long[] splitAttribute, boolean splitInput, Long numOutputs, int outputs) implements TensorKernel {
    @Override
    public String op() {
        return "Split";
    }

    private TensorOps.Splitting splitting(InputValues inputs) {
        long[] x = Shapes.checked(inputs.shape(0));
        long[] split = splitAttribute;
        if (split == null && splitInput && inputs.present(1)) {
            double[] values = inputs.doubles(1);
            split = new long[values.length];
            for (int i = 0; i < values.length; i++) {
                split[i] = (long) values[i];
            }
        }
        int a = TensorOps.axis(op(), axis, x.length);
        return TensorOps.split(x, a, TensorOps.splitSizes(x[a], split, numOutputs, outputs));
    }

    @Override
    public long[][] outputShapes(InputValues inputs) {
        return splitting(inputs).outputShapes();
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor x = inputs.get(0);
        TensorOps.Splitting s = splitting(InputValues.of(op(), inputs));
        Shapes.requireOutputShapes(op(), outputs, s.outputShapes());
        for (int i = 0; i < outputs.size(); i++) {
            Shapes.requireType(op(), "output " + i, outputs.get(i), x.elementType());
            StridedCopier.copy(x.data(), outputs.get(i).data(), x.elementType().byteSize(), s.parts().get(i));
        }
    }
}
