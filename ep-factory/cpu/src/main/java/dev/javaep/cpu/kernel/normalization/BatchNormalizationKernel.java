package dev.javaep.cpu.kernel.normalization;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.NormalizationOps.BatchNorm;
import dev.javaep.spi.ops.NormalizationOps.ChannelLayout;
import java.util.List;

/**
 * BatchNormalization in inference on float32 or float16: {@code y = x * a + b} with, per channel (or per
 * position for spatial=0), {@code a = scale / sqrt(var + epsilon)} and {@code b = B - mean * a} in double.
 */
record BatchNormalizationKernel(BatchNorm rule) implements CpuKernel {
    private static final String OP = "BatchNormalization";

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        if (inputShapes.length != 5) {
            throw new IllegalArgumentException(OP + " takes 5 inputs, got " + inputShapes.length);
        }
        long[] x = Shapes.checked(inputShapes[0]);
        rule.layout(x, Shapes.checked(inputShapes[1]), Shapes.checked(inputShapes[2]), Shapes.checked(inputShapes[3]),
                Shapes.checked(inputShapes[4]));
        return new long[][] {x.clone()};
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor x = inputs.get(0);
        ChannelLayout layout = rule.layout(x.shape(), inputs.get(1).shape(), inputs.get(2).shape(), inputs.get(3).shape(),
                inputs.get(4).shape());
        Shapes.requireOutputShapes(OP, outputs.subList(0, 1), new long[][] {x.shape()});
        FloatAccess in = FloatAccess.of(OP, "X", x);
        FloatAccess out = FloatAccess.of(OP, "Y", outputs.get(0));
        FloatAccess scale = FloatAccess.of(OP, "scale", inputs.get(1));
        FloatAccess bias = FloatAccess.of(OP, "B", inputs.get(2));
        FloatAccess mean = FloatAccess.of(OP, "mean", inputs.get(3));
        FloatAccess variance = FloatAccess.of(OP, "var", inputs.get(4));
        int parameters = Math.toIntExact(layout.perElement() ? layout.channels() * layout.inner() : layout.channels());
        double[] a = new double[parameters];
        double[] b = new double[parameters];
        for (int p = 0; p < parameters; p++) {
            a[p] = scale.get(p) / Math.sqrt((double) variance.get(p) + rule.epsilon());
            b[p] = bias.get(p) - mean.get(p) * a[p];
        }
        long elements = layout.elements();
        for (long i = 0; i < elements; i++) {
            int p = (int) layout.parameterIndex(i);
            out.set(i, (float) (in.get(i) * a[p] + b[p]));
        }
    }
}
