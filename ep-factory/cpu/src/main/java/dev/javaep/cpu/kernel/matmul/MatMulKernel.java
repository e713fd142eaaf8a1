package dev.javaep.cpu.kernel.matmul;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.MatMulOps.MatMulGeometry;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * MatMul on float32 (float16 through float32 copies) with numpy semantics ({@link MatMulGeometry}): a 1-D A is a
 * row vector and a 1-D B a column vector (their added dimension is removed from the result), and the leading
 * "batch" dimensions broadcast.
 */
record MatMulKernel(ElementType type) implements CpuKernel {

    /** The float32 kernel. */
    MatMulKernel() {
        this(ElementType.FLOAT);
    }

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        if (inputShapes.length != 2) {
            throw new IllegalArgumentException("MatMul takes 2 inputs, got " + inputShapes.length);
        }
        return new long[][] {MatMulGeometry.of(Shapes.checked(inputShapes[0]), Shapes.checked(inputShapes[1])).outputShape()};
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor a = inputs.get(0);
        Tensor b = inputs.get(1);
        Tensor y = outputs.get(0);
        Shapes.requireType("MatMul", "input A", a, type);
        Shapes.requireType("MatMul", "input B", b, type);
        Shapes.requireType("MatMul", "output Y", y, type);
        MatMulGeometry g = MatMulGeometry.of(a.shape(), b.shape());
        Shapes.requireOutputShapes("MatMul", outputs, new long[][] {g.outputShape()});
        if (type == ElementType.FLOAT16) {
            try (Arena arena = Arena.ofShared()) { // shared: the kernel threads read and write it
                Tensor wide = Float16Copies.scratch(arena, y);
                multiply(Float16Copies.widened(arena, a).data(), Float16Copies.widened(arena, b).data(), wide.data(), g);
                Float16Copies.narrow(wide, y);
            }
        } else {
            multiply(a.data(), b.data(), y.data(), g);
        }
    }

    /** The product of float32 operands, batch by batch (each batch's operands found through the geometry's strides). */
    private static void multiply(MemorySegment as, MemorySegment bs, MemorySegment ys, MatMulGeometry g) {
        ys.fill((byte) 0); // the product accumulates; this also makes K = 0 give zeros
        long batches = g.batchCount();
        long m = g.m();
        long k = g.k();
        long n = g.n();
        if (batches == 0 || m == 0 || n == 0 || k == 0) {
            return;
        }
        long[] batch = g.batch();
        long[] aStrides = g.aBatchStrides();
        long[] bStrides = g.bBatchStrides();
        if (Arrays.stream(bStrides).allMatch(s -> s == 0) && Arrays.equals(aStrides,
                Broadcasting.strides(batch, batch.length))) {
            // One B for every batch of A: A's batches stacked are one tall matrix, and so is Y.
            FloatMatrixProduct.multiplyAccumulate(as, 0, false, bs, 0, false, ys, 0, batches * m, k, n, 1f);
            return;
        }
        long[] index = new long[batch.length];
        long aMatrix = 0;
        long bMatrix = 0;
        for (long t = 0; t < batches; t++) {
            FloatMatrixProduct.multiplyAccumulate(as, aMatrix * m * k, false, bs, bMatrix * k * n, false, ys, t * m * n, m, k, n, 1f);
            for (int d = batch.length - 1; d >= 0; d--) {
                aMatrix += aStrides[d];
                bMatrix += bStrides[d];
                if (++index[d] < batch[d]) {
                    break;
                }
                index[d] = 0;
                aMatrix -= aStrides[d] * batch[d];
                bMatrix -= bStrides[d] * batch[d];
            }
        }
    }
}
