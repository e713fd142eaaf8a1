package dev.javaep.cpu.kernel.matmul;

import dev.javaep.cpu.kernel.BroadcastRows;
import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * MatMul on float32 with numpy semantics: a 1-D A is a row vector and a 1-D B a column vector
 * (their added dimension is removed from the result), and the leading "batch" dimensions broadcast.
 */
record MatMulKernel() implements CpuKernel {

    /** The shapes of one MatMul, after 1-D promotion. */
    private record Geometry(long m, long k, long n, long[] batchA, long[] batchB, long[] outputShape) {

        static Geometry of(long[] a, long[] b) {
            Shapes.checked(a);
            Shapes.checked(b);
            if (a.length == 0 || b.length == 0) {
                throw new IllegalArgumentException("MatMul: inputs must have rank 1 or more, got shapes "
                        + Arrays.toString(a) + " and " + Arrays.toString(b));
            }
            long m = a.length == 1 ? 1 : a[a.length - 2];
            long k = a[a.length - 1];
            long kb = b.length == 1 ? b[0] : b[b.length - 2];
            long n = b.length == 1 ? 1 : b[b.length - 1];
            if (k != kb) {
                throw new IllegalArgumentException("MatMul: inner dimensions differ: A " + Arrays.toString(a)
                        + " has K=" + k + " but B " + Arrays.toString(b) + " has K=" + kb);
            }
            long[] batchA = Arrays.copyOf(a, Math.max(0, a.length - 2));
            long[] batchB = Arrays.copyOf(b, Math.max(0, b.length - 2));
            long[] batch;
            try {
                batch = Broadcasting.multidirectional(batchA, batchB);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("MatMul: batch dimensions of " + Arrays.toString(a) + " and "
                        + Arrays.toString(b) + " do not broadcast: " + e.getMessage(), e);
            }
            long[] out = Arrays.copyOf(batch, batch.length + (a.length > 1 ? 1 : 0) + (b.length > 1 ? 1 : 0));
            int next = batch.length;
            if (a.length > 1) {
                out[next++] = m;
            }
            if (b.length > 1) {
                out[next] = n;
            }
            return new Geometry(m, k, n, batchA, batchB, out);
        }
    }

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        if (inputShapes.length != 2) {
            throw new IllegalArgumentException("MatMul takes 2 inputs, got " + inputShapes.length);
        }
        return new long[][] {Geometry.of(inputShapes[0], inputShapes[1]).outputShape()};
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor a = inputs.get(0);
        Tensor b = inputs.get(1);
        Tensor y = outputs.get(0);
        Shapes.requireType("MatMul", "input A", a, ElementType.FLOAT);
        Shapes.requireType("MatMul", "input B", b, ElementType.FLOAT);
        Shapes.requireType("MatMul", "output Y", y, ElementType.FLOAT);
        Geometry g = Geometry.of(a.shape(), b.shape());
        Shapes.requireOutputShapes("MatMul", outputs, new long[][] {g.outputShape()});

        MemorySegment as = a.data();
        MemorySegment bs = b.data();
        MemorySegment ys = y.data();
        ys.fill((byte) 0); // the product accumulates; this also makes K = 0 give zeros
        if (y.elementCount() == 0 || g.k() == 0) {
            return;
        }
        long m = g.m();
        long k = g.k();
        long n = g.n();
        FloatMatrixProduct product = new FloatMatrixProduct(k, n);
        if (Shapes.elementCount(g.batchB()) == 1) {
            // One B for every batch of A: A's batches stacked are one tall matrix, and so is Y.
            long rows = Shapes.elementCount(g.batchA()) * m;
            product.multiplyAccumulate(as, 0, false, bs, 0, false, ys, 0, rows, k, n, 1f);
            return;
        }
        BroadcastRows batches = BroadcastRows.of(g.batchA(), g.batchB());
        long run = batches.rowLength();
        long aStep = batches.aStep();
        long bStep = batches.bStep();
        batches.forEachRow((yBatch, aBatch, bBatch) -> {
            for (long j = 0; j < run; j++) {
                product.multiplyAccumulate(
                        as, (aBatch + j * aStep) * m * k, false,
                        bs, (bBatch + j * bStep) * k * n, false,
                        ys, (yBatch + j) * m * n, m, k, n, 1f);
            }
        });
    }
}
