package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Gather along {@code axis}: the data as [outer, axisDim, inner], output [outer, indexCount, inner], each
 * inner row copied from the row its (int32 or int64, possibly negative) index names. Every index is checked
 * before anything is written. The geometry and the row buffer are planned once per input shapes.
 */
record GatherKernel(long axis) implements TensorKernel {
    @Override
    public String op() {
        return "Gather";
    }

    @Override
    public long[][] outputShapes(InputValues inputs) {
        return new long[][] {TensorOps.gather(Shapes.checked(inputs.shape(0)), Shapes.checked(inputs.shape(1)), axis).outputShape()};
    }

    @Override
    public Plan plan(InputValues inputs) {
        TensorOps.Gathering g = TensorOps.gather(Shapes.checked(inputs.shape(0)), Shapes.checked(inputs.shape(1)), axis);
        long[][] shapes = {g.outputShape()};
        long[] rows = new long[Math.toIntExact(g.indexCount())];
        return new ShapedPlan(shapes) {
            @Override
            public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
                Shapes.requireOutputShape(op(), outputs, shapes[0]);
                gather(inputs.get(0), inputs.get(1), outputs.get(0), g, rows);
            }
        };
    }

    /** The gather of {@code g}; {@code rows}: room for each index's row (every index is checked before a write). */
    private void gather(Tensor data, Tensor indices, Tensor y, TensorOps.Gathering g, long[] rows) {
        Shapes.requireType(op(), "output", y, data.elementType());
        for (int j = 0; j < rows.length; j++) {
            rows[j] = TensorOps.index(op(), InputValues.IntegerValues.at(indices.data(), indices.elementType(), j), g.axisDim());
        }
        long rowBytes = g.inner() * data.elementType().byteSize();
        if (rowBytes == 0) {
            return;
        }
        long target = 0;
        for (long o = 0; o < g.outer(); o++) {
            long base = o * g.axisDim();
            for (long row : rows) {
                MemorySegment.copy(data.data(), (base + row) * rowBytes, y.data(), target, rowBytes);
                target += rowBytes;
            }
        }
    }
}
