package dev.javaep.cpu.kernel.conv;

import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ConvOps.ConvAttributes;
import dev.javaep.spi.ops.ConvOps.ConvGeometry;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Conv and ConvTranspose on float32, and on float16 by conversion (computed in float32, rounded once at the end),
 * with 1 to 3 spatial axes: {@link FloatConvolution} and {@link FloatTransposedConvolution} do the arithmetic. The
 * geometry and the convolution object are planned once per set of input shapes; with {@code constantWeights} (W is a
 * constant initializer) a Conv plan packs W on its first call only and then no longer reads it.
 */
record ConvKernel(ConvAttributes attributes, boolean transposed, ElementType type, boolean constantWeights)
        implements PlannedKernel {

    ConvGeometry geometry(long[][] shapes) {
        long[] b = shapes.length > 2 ? shapes[2] : null;
        ConvGeometry g = transposed
                ? ConvGeometry.transposed(attributes, shapes[0], shapes[1], b)
                : ConvGeometry.of(attributes, shapes[0], shapes[1], b);
        if (g.spatialRank() > Window3.MAX_RANK) {
            throw new IllegalArgumentException(attributes.op() + ": JavaCpu takes 1 to " + Window3.MAX_RANK
                    + " spatial axes, X has " + g.spatialRank());
        }
        return g;
    }

    @Override
    public Plan plan(long[][] inputShapes) {
        if (inputShapes.length < 2) {
            throw new IllegalArgumentException(attributes.op() + " takes X, W and an optional B");
        }
        return new ConvPlan(geometry(inputShapes));
    }

    /** The geometry of one set of input shapes and the convolution that runs it (with its task bodies and buffers). */
    private final class ConvPlan extends ShapedPlan {
        private final FloatConvolution convolution;
        private final FloatTransposedConvolution transposedConvolution;

        ConvPlan(ConvGeometry g) {
            super(new long[][] {g.outputShape()});
            this.convolution = transposed ? null : new FloatConvolution(g, constantWeights);
            this.transposedConvolution = transposed ? new FloatTransposedConvolution(g) : null;
        }

        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            String op = attributes.op();
            Tensor x = inputs.get(0);
            Tensor w = inputs.get(1);
            Tensor b = inputs.size() > 2 ? inputs.get(2) : null;
            Tensor y = outputs.get(0);
            Shapes.requireType(op, "input X", x, type);
            Shapes.requireType(op, "input W", w, type);
            Shapes.requireType(op, "output Y", y, type);
            if (b != null) {
                Shapes.requireType(op, "input B", b, type);
            }
            Shapes.requireOutputShapes(op, outputs, outputShapes());
            MemorySegment ys = FloatData.target(y);
            MemorySegment bs = b == null ? null : FloatData.read(b);
            if (transposed) {
                transposedConvolution.run(FloatData.read(x), FloatData.read(w), bs, ys);
            } else {
                convolution.run(FloatData.read(x), convolution.needsWeights() ? FloatData.read(w) : null, bs, ys);
            }
            FloatData.write(ys, y);
        }
    }
}
