package dev.javaep.cpu.kernel.matmul;

import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.MatMulOps.MatMulGeometry;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * MatMul on float32 (float16 through float32 copies) with numpy semantics ({@link MatMulGeometry}): a 1-D A is a
 * row vector and a 1-D B a column vector (their added dimension is removed from the result), and the leading
 * "batch" dimensions broadcast. The geometry (and float16's float32 buffers) are planned once per pair of input shapes.
 */
record MatMulKernel(ElementType type) implements PlannedKernel {

    /** The float32 kernel. */
    MatMulKernel() {
        this(ElementType.FLOAT);
    }

    @Override
    public Plan plan(long[][] inputShapes) {
        if (inputShapes.length != 2) {
            throw new IllegalArgumentException("MatMul takes 2 inputs, got " + inputShapes.length);
        }
        long[] a = Shapes.checked(inputShapes[0]);
        long[] b = Shapes.checked(inputShapes[1]);
        return new ProductPlan(MatMulGeometry.of(a, b), a, b);
    }

    /** The geometry of one pair of input shapes, and for float16 the float32 copies' buffers. */
    private final class ProductPlan extends ShapedPlan {
        private final MatMulGeometry g;
        /** One B for every batch of A: A's batches stacked are one tall matrix, and so is Y. */
        private final boolean oneTallProduct;
        private final long[] index;
        private final MemorySegment wideA;
        private final MemorySegment wideB;
        private final MemorySegment wideY;

        ProductPlan(MatMulGeometry g, long[] a, long[] b) {
            super(new long[][] {g.outputShape()});
            this.g = g;
            long[] batch = g.batch();
            this.oneTallProduct = Arrays.stream(g.bBatchStrides()).allMatch(s -> s == 0)
                    && Arrays.equals(g.aBatchStrides(), Broadcasting.strides(batch, batch.length));
            this.index = new long[batch.length];
            boolean half = type == ElementType.FLOAT16;
            this.wideA = half ? Float16Copies.buffer(a) : null;
            this.wideB = half ? Float16Copies.buffer(b) : null;
            this.wideY = half ? Float16Copies.buffer(g.outputShape()) : null;
        }

        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            Tensor a = inputs.get(0);
            Tensor b = inputs.get(1);
            Tensor y = outputs.get(0);
            Shapes.requireType("MatMul", "input A", a, type);
            Shapes.requireType("MatMul", "input B", b, type);
            Shapes.requireType("MatMul", "output Y", y, type);
            Shapes.requireOutputShapes("MatMul", outputs, outputShapes());
            if (type == ElementType.FLOAT16) {
                multiply(Float16Copies.widen(a, wideA), Float16Copies.widen(b, wideB), wideY);
                Float16Copies.narrow(wideY, y);
            } else {
                multiply(a.data(), b.data(), y.data());
            }
        }

        /** The product of float32 operands, batch by batch (each batch's operands found through the geometry's strides). */
        private void multiply(MemorySegment as, MemorySegment bs, MemorySegment ys) {
            ys.fill((byte) 0); // the product accumulates; this also makes K = 0 give zeros
            long batches = g.batchCount();
            long m = g.m();
            long k = g.k();
            long n = g.n();
            if (batches == 0 || m == 0 || n == 0 || k == 0) {
                return;
            }
            if (oneTallProduct) {
                FloatMatrixProduct.multiplyAccumulate(as, 0, false, bs, 0, false, ys, 0, batches * m, k, n, 1f);
                return;
            }
            long[] batch = g.batch();
            long[] aStrides = g.aBatchStrides();
            long[] bStrides = g.bBatchStrides();
            Arrays.fill(index, 0);
            long aMatrix = 0;
            long bMatrix = 0;
            for (long t = 0; t < batches; t++) {
                FloatMatrixProduct.multiplyAccumulate(as, aMatrix * m * k, false, bs, bMatrix * k * n, false, ys, t * m * n,
                        m, k, n, 1f);
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
}
