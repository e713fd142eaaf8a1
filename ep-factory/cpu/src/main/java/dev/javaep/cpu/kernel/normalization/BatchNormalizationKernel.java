package dev.javaep.cpu.kernel.normalization;

import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.cpu.kernel.FloatAccess;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.NormalizationOps.BatchNorm;
import dev.javaep.spi.ops.NormalizationOps.ChannelLayout;
import java.util.List;

/**
 * BatchNormalization on float32 or float16: {@code y = x * a + b} with, per channel (or per position for spatial=0),
 * {@code a = scale / sqrt(var + epsilon)} and {@code b = B - mean * a} in double. In training mode mean and var are
 * the batch's (two passes per channel in double: the mean, then the squared deviations from it, over N x D1 x ...),
 * and the optional running_mean and running_var outputs blend them with the inputs by momentum. The layout and the
 * per-parameter arrays are planned once per set of input shapes.
 */
record BatchNormalizationKernel(BatchNorm rule) implements PlannedKernel {
    private static final String OP = "BatchNormalization";

    @Override
    public Plan plan(long[][] inputShapes) {
        if (inputShapes.length != 5) {
            throw new IllegalArgumentException(OP + " takes 5 inputs, got " + inputShapes.length);
        }
        long[] x = Shapes.checked(inputShapes[0]);
        ChannelLayout layout = rule.layout(x, Shapes.checked(inputShapes[1]), Shapes.checked(inputShapes[2]),
                Shapes.checked(inputShapes[3]), Shapes.checked(inputShapes[4]));
        long[][] outputShapes = rule.training()
                ? new long[][] {x.clone(), inputShapes[3].clone(), inputShapes[4].clone()}
                : new long[][] {x.clone()};
        return new ChannelPlan(layout, outputShapes);
    }

    /** The channel layout of one set of input shapes and the per-parameter arrays its Runs fill, made once. */
    private final class ChannelPlan extends ShapedPlan {
        private final ChannelLayout layout;
        private final double[] means;
        private final double[] variances;
        private final double[] a;
        private final double[] b;

        ChannelPlan(ChannelLayout layout, long[][] outputShapes) {
            super(outputShapes);
            this.layout = layout;
            int parameters = Math.toIntExact(layout.perElement() ? layout.channels() * layout.inner() : layout.channels());
            this.means = new double[parameters];
            this.variances = new double[parameters];
            this.a = new double[parameters];
            this.b = new double[parameters];
        }

        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            Tensor x = inputs.get(0);
            Shapes.requireOutputShape(OP, 0, outputs.get(0), outputShapes()[0]);
            FloatAccess in = FloatAccess.of(OP, "X", x);
            FloatAccess out = FloatAccess.of(OP, "Y", outputs.get(0));
            FloatAccess scale = FloatAccess.of(OP, "scale", inputs.get(1));
            FloatAccess bias = FloatAccess.of(OP, "B", inputs.get(2));
            FloatAccess mean = FloatAccess.of(OP, "mean", inputs.get(3));
            FloatAccess variance = FloatAccess.of(OP, "var", inputs.get(4));
            int parameters = means.length;
            if (rule.training()) {
                batchStatistics(layout, in, means, variances);
                FloatAccess runningMean = optional(outputs, 1, "running_mean");
                FloatAccess runningVar = optional(outputs, 2, "running_var");
                double momentum = rule.momentum();
                for (int p = 0; p < parameters; p++) {
                    if (runningMean != null) {
                        runningMean.set(p, (float) (mean.get(p) * momentum + means[p] * (1 - momentum)));
                    }
                    if (runningVar != null) {
                        runningVar.set(p, (float) (variance.get(p) * momentum + variances[p] * (1 - momentum)));
                    }
                }
            } else {
                for (int p = 0; p < parameters; p++) {
                    means[p] = mean.get(p);
                    variances[p] = variance.get(p);
                }
            }
            for (int p = 0; p < parameters; p++) {
                a[p] = scale.get(p) / Math.sqrt(variances[p] + rule.epsilon());
                b[p] = bias.get(p) - means[p] * a[p];
            }
            long elements = layout.elements();
            for (long i = 0; i < elements; i++) {
                int p = (int) layout.parameterIndex(i);
                out.set(i, (float) (in.get(i) * a[p] + b[p]));
            }
        }
    }

    /** Per channel, the mean and the population variance of X's elements of that channel (0 for an empty batch). */
    private static void batchStatistics(ChannelLayout layout, FloatAccess in, double[] means, double[] variances) {
        long count = layout.outer() * layout.inner();
        for (int c = 0; c < layout.channels(); c++) {
            double sum = 0;
            for (long n = 0; n < layout.outer(); n++) {
                long base = (n * layout.channels() + c) * layout.inner();
                for (long j = 0; j < layout.inner(); j++) {
                    sum += in.get(base + j);
                }
            }
            double m = count == 0 ? 0 : sum / count;
            double squares = 0;
            for (long n = 0; n < layout.outer(); n++) {
                long base = (n * layout.channels() + c) * layout.inner();
                for (long j = 0; j < layout.inner(); j++) {
                    double d = in.get(base + j) - m;
                    squares += d * d;
                }
            }
            means[c] = m;
            variances[c] = count == 0 ? 0 : squares / count;
        }
    }

    private static FloatAccess optional(List<? extends Tensor> outputs, int index, String name) {
        return outputs.size() > index && outputs.get(index) != null ? FloatAccess.of(OP, name, outputs.get(index)) : null;
    }
}
