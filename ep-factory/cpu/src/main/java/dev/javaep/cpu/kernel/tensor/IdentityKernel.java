package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.util.List;

/** Identity: the output is a byte copy of the input, for any element type with a byte size. */
record IdentityKernel() implements CpuKernel {

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        return Shapes.likeTheOnlyInput("Identity", inputShapes);
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor x = inputs.get(0);
        Tensor y = outputs.get(0);
        Shapes.requireType("Identity", "output", y, x.elementType());
        Shapes.requireOutputShape("Identity", outputs, x.shape());
        // MemorySegment.copy has memmove semantics, so an output that aliases the input is fine.
        MemorySegment.copy(x.data(), 0, y.data(), 0, x.byteSize());
    }
}
