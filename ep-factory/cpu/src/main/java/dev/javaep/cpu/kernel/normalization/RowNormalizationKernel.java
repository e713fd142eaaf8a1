package dev.javaep.cpu.kernel.normalization;

import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.cpu.kernel.FloatAccess;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.NormalizationOps.LayerNorm;
import dev.javaep.spi.ops.NormalizationOps.RowLayout;
import dev.javaep.spi.ops.NormalizationOps.RowNormalization;
import java.util.List;

/**
 * InstanceNormalization, LayerNormalization and GroupNormalization on float32 or float16: each row of the
 * {@link RowLayout} is normalised with its mean and (population) variance, taken in two passes in double, then
 * scaled and shifted by the parameters the layout names. LayerNormalization's optional Mean and InvStdDev
 * outputs get each row's statistics. The layout is planned once per set of input shapes.
 */
record RowNormalizationKernel(RowNormalization rule) implements PlannedKernel {

    @Override
    public Plan plan(long[][] inputShapes) {
        long[] x = Shapes.checked(inputShapes[0]);
        RowLayout layout = rule.layout(x, Shapes.checked(inputShapes[1]),
                inputShapes.length > 2 && inputShapes[2] != null ? Shapes.checked(inputShapes[2]) : null);
        long[][] outputShapes = rule instanceof LayerNorm
                ? new long[][] {x.clone(), layout.statisticsShape(), layout.statisticsShape()}
                : new long[][] {x.clone()};
        return new RowsPlan(layout, outputShapes);
    }

    /** The row layout of one set of input shapes, made once. */
    private final class RowsPlan extends ShapedPlan {
        private final RowLayout layout;

        RowsPlan(RowLayout layout, long[][] outputShapes) {
            super(outputShapes);
            this.layout = layout;
        }

        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            String op = rule.op();
            Tensor x = inputs.get(0);
            Tensor biasTensor = inputs.size() > 2 ? inputs.get(2) : null;
            Shapes.requireOutputShape(op, 0, outputs.get(0), outputShapes()[0]);
            FloatAccess in = FloatAccess.of(op, "X", x);
            FloatAccess out = FloatAccess.of(op, "Y", outputs.get(0));
            FloatAccess scale = FloatAccess.of(op, "scale", inputs.get(1));
            FloatAccess bias = biasTensor == null ? null : FloatAccess.of(op, "bias", biasTensor);
            FloatAccess meanOut = statistics(op, outputs, 1, "Mean");
            FloatAccess invStdDevOut = statistics(op, outputs, 2, "InvStdDev");
            long length = layout.length();
            for (long row = 0; row < layout.rows(); row++) {
                long base = row * length;
                long group = row % layout.groups();
                double sum = 0;
                for (long i = 0; i < length; i++) {
                    sum += in.get(base + i);
                }
                double mean = length == 0 ? 0 : sum / length;
                double squares = 0;
                for (long i = 0; i < length; i++) {
                    double d = in.get(base + i) - mean;
                    squares += d * d;
                }
                double variance = length == 0 ? 0 : squares / length;
                double inverse = 1.0 / Math.sqrt(variance + rule.epsilon());
                for (long i = 0; i < length; i++) {
                    double normalised = (in.get(base + i) - mean) * inverse;
                    double y = normalised * scale.get(layout.scale().of(group, i))
                            + (bias == null ? 0 : bias.get(layout.bias().of(group, i)));
                    out.set(base + i, (float) y);
                }
                if (meanOut != null) {
                    meanOut.set(row, (float) mean);
                }
                if (invStdDevOut != null) {
                    invStdDevOut.set(row, (float) inverse);
                }
            }
        }
    }

    private static FloatAccess statistics(String op, List<? extends Tensor> outputs, int index, String name) {
        return outputs.size() > index && outputs.get(index) != null ? FloatAccess.of(op, name, outputs.get(index)) : null;
    }
}
