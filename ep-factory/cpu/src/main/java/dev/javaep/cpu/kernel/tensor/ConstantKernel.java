package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.TensorValue;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Constant (the value, {@code fill} false) and ConstantOfShape (the one-element value repeated over the
 * shape input 0 gives, {@code fill} true).
 */
record ConstantKernel(TensorValue value, boolean fill) implements TensorKernel.Unplanned {
    @Override
    public String op() {
        return fill ? "ConstantOfShape" : "Constant";
    }

    @Override
    public long[][] outputShapes(InputValues inputs) {
        if (!fill) {
            return new long[][] {value.shape()};
        }
        long[] shape = inputs.longs(0);
        if (shape == null) {
            throw new IllegalArgumentException("ConstantOfShape: the shape input is required");
        }
        return new long[][] {Shapes.checked(shape)};
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor y = outputs.get(0);
        Shapes.requireType(op(), "output", y, value.elementType());
        Shapes.requireOutputShapes(op(), outputs, outputShapes(inputs));
        MemorySegment bytes = MemorySegment.ofBuffer(value.data());
        if (!fill) {
            MemorySegment.copy(bytes, 0, y.data(), 0, y.byteSize());
            return;
        }
        int size = value.elementType().byteSize();
        long n = y.elementCount();
        if (n == 0) {
            return;
        }
        MemorySegment.copy(bytes, 0, y.data(), 0, size);
        // double the filled prefix until the output is full
        for (long filled = 1; filled < n; ) {
            long chunk = Math.min(filled, n - filled);
            MemorySegment.copy(y.data(), 0, y.data(), filled * size, chunk * size);
            filled += chunk;
        }
    }
}
