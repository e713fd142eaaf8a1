package dev.javaep.cpu.kernel.conv;

import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.PoolOps.MaxPoolIndices;
import dev.javaep.spi.ops.PoolOps.PoolAttributes;
import dev.javaep.spi.ops.PoolOps.PoolGeometry;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * MaxPool and AveragePool (1 to 3 spatial axes; float32, float16 and, for MaxPool, int8/uint8 through float32,
 * which holds their values exactly), and GlobalMaxPool/GlobalAveragePool ({@code attributes} null) over any rank.
 *
 * <p>The geometry, windows and plane buffer are planned once per input shape.
 *
 * @param indices MaxPool's Indices rule when the node asks for that output, else null
 */
record PoolKernel(FloatPooling.Kind kind, PoolAttributes attributes, String op, ElementType type, MaxPoolIndices indices)
        implements PlannedKernel {

    /** A pool without an Indices output. */
    PoolKernel(FloatPooling.Kind kind, PoolAttributes attributes, String op, ElementType type) {
        this(kind, attributes, op, type, null);
    }

    PoolGeometry geometry(long[] x) {
        if (attributes == null) {
            return PoolGeometry.global(op, x);
        }
        PoolGeometry g = PoolGeometry.of(attributes, x);
        if (g.spatialRank() > Window3.MAX_RANK) {
            throw new IllegalArgumentException(op + ": JavaCpu takes 1 to " + Window3.MAX_RANK + " spatial axes, X has "
                    + g.spatialRank());
        }
        return g;
    }

    @Override
    public Plan plan(long[][] inputShapes) {
        if (inputShapes.length != 1) {
            throw new IllegalArgumentException(op + " takes one input, got " + inputShapes.length);
        }
        return new PoolPlan(geometry(Shapes.checked(inputShapes[0])));
    }

    /** The geometry of one input shape and what its pool needs (windows, plane buffer), made once. */
    private final class PoolPlan extends ShapedPlan {
        private final PoolGeometry g;
        /** The windowed pool (without indices: a MaxPool node may leave that output out), else null. */
        private final FloatPooling.Windows windows;
        /** MaxPool with indices: its window; the global pools and it: the plane buffer. */
        private final Window3 window;
        private final float[] plane;

        PoolPlan(PoolGeometry g) {
            super(indices == null ? new long[][] {g.outputShape()} : new long[][] {g.outputShape(), g.outputShape()});
            this.g = g;
            this.windows = attributes != null ? new FloatPooling.Windows(kind, attributes.countIncludePad(), g) : null;
            this.window = attributes != null && indices != null ? Window3.of(g) : null;
            this.plane = attributes == null ? new float[Math.toIntExact(g.inputSpatialSize())]
                    : window != null ? new float[window.inSize()] : null;
        }

        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            Tensor x = inputs.get(0);
            Tensor y = outputs.get(0);
            Shapes.requireType(op, "input X", x, type);
            Shapes.requireType(op, "output Y", y, type);
            Shapes.requireOutputShape(op, 0, y, outputShapes()[0]);
            Tensor argmax = indices != null && outputs.size() > 1 ? outputs.get(1) : null;
            MemorySegment ys = FloatData.target(y);
            if (argmax != null) {
                Shapes.requireType(op, "output Indices", argmax, ElementType.INT64);
                Shapes.requireOutputShape(op, 1, argmax, outputShapes()[0]);
                FloatPooling.maxWithIndices(g, window, indices, FloatData.read(x), ys, argmax.data(), plane);
            } else if (attributes == null) {
                FloatPooling.global(kind, Math.multiplyExact(g.batch(), g.channels()), plane.length, FloatData.read(x), ys, plane);
            } else {
                windows.pool(FloatData.read(x), ys);
            }
            FloatData.write(ys, y);
        }
    }
}
