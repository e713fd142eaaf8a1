package dev.javaep.cpu.kernel.conv;

import dev.javaep.cpu.kernel.CpuKernel;
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
 * @param indices MaxPool's Indices rule when the node asks for that output, else null
 */
record PoolKernel(FloatPooling.Kind kind, PoolAttributes attributes, String op, ElementType type, MaxPoolIndices indices)
        implements CpuKernel {

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
    public long[][] outputShapes(long[][] inputShapes) {
        if (inputShapes.length != 1) {
            throw new IllegalArgumentException(op + " takes one input, got " + inputShapes.length);
        }
        long[] y = geometry(inputShapes[0]).outputShape();
        return indices == null ? new long[][] {y} : new long[][] {y, y.clone()};
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor x = inputs.get(0);
        Tensor y = outputs.get(0);
        Shapes.requireType(op, "input X", x, type);
        Shapes.requireType(op, "output Y", y, type);
        PoolGeometry g = geometry(x.shape());
        Shapes.requireOutputShape(op, 0, outputs.get(0), g.outputShape());
        Tensor argmax = indices != null && outputs.size() > 1 ? outputs.get(1) : null;
        MemorySegment ys = FloatData.target(y);
        if (argmax != null) {
            Shapes.requireType(op, "output Indices", argmax, ElementType.INT64);
            Shapes.requireOutputShape(op, 1, argmax, g.outputShape());
            FloatPooling.maxWithIndices(g, indices, FloatData.read(x), ys, argmax.data());
        } else if (attributes == null) {
            FloatPooling.global(kind, Math.multiplyExact(g.batch(), g.channels()), Math.toIntExact(g.inputSpatialSize()),
                    FloatData.read(x), ys);
        } else {
            FloatPooling.pool(kind, attributes.countIncludePad(), g, FloatData.read(x), ys);
        }
        FloatData.write(ys, y);
    }
}
