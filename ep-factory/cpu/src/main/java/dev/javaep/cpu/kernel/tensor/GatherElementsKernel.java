package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.TensorOps;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * GatherElements along {@code axis}: output element {@code i} (shaped like the indices) is the data element at
 * i's coordinates with the one along {@code axis} replaced by {@code indices[i]} (negative from the back).
 */
record GatherElementsKernel(long axis) implements TensorKernel.Unplanned {
    @Override
    public String op() {
        return "GatherElements";
    }

    @Override
    public long[][] outputShapes(InputValues inputs) {
        long[] data = Shapes.checked(inputs.shape(0));
        long[] indices = Shapes.checked(inputs.shape(1));
        TensorOps.gatherElementsAxis(data, indices, axis);
        return new long[][] {indices.clone()};
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor data = inputs.get(0);
        Tensor indices = inputs.get(1);
        Tensor y = outputs.get(0);
        Shapes.requireType(op(), "output", y, data.elementType());
        int a = TensorOps.gatherElementsAxis(data.shape(), indices.shape(), axis);
        Shapes.requireOutputShape(op(), outputs, indices.shape());
        long[] shape = indices.shape();
        long[] strides = TensorOps.contiguousStrides(data.shape());
        long dim = data.shape()[a];
        int size = data.elementType().byteSize();
        long n = indices.elementCount();
        long[] idx = new long[shape.length];
        long base = 0; // Σ idx[k]·strides[k] over k != a
        for (long i = 0; i < n; i++) {
            long k = TensorOps.index(op(), InputValues.IntegerValues.at(indices.data(), indices.elementType(), i), dim);
            MemorySegment.copy(data.data(), (base + k * strides[a]) * size, y.data(), i * size, size);
            for (int d = shape.length - 1; d >= 0; d--) {
                if (d != a) {
                    base += strides[d];
                }
                if (++idx[d] < shape[d]) {
                    break;
                }
                if (d != a) {
                    base -= strides[d] * shape[d];
                }
                idx[d] = 0;
            }
        }
    }
}
