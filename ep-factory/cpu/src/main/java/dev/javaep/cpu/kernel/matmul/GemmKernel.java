package dev.javaep.cpu.kernel.matmul;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

/**
 * Gemm on float32 (opset 7 and later): {@code Y = alpha * op(A) * op(B) + beta * C}, where C is
 * optional and broadcasts unidirectionally to (M, N).
 */
record GemmKernel(float alpha, float beta, boolean transA, boolean transB) implements CpuKernel {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        if (inputShapes.length < 2 || inputShapes.length > 3) {
            throw new IllegalArgumentException("Gemm takes 2 or 3 inputs, got " + inputShapes.length);
        }
        long[] a = Shapes.checked(inputShapes[0]);
        long[] b = Shapes.checked(inputShapes[1]);
        if (a.length != 2 || b.length != 2) {
            throw new IllegalArgumentException("Gemm: A and B must be 2-D, got shapes " + Arrays.toString(a)
                    + " and " + Arrays.toString(b));
        }
        long m = transA ? a[1] : a[0];
        long k = transA ? a[0] : a[1];
        long kb = transB ? b[1] : b[0];
        long n = transB ? b[0] : b[1];
        if (k != kb) {
            throw new IllegalArgumentException("Gemm: inner dimensions differ: op(A) is " + m + "x" + k
                    + " (A " + Arrays.toString(a) + ", transA=" + transA + ") but op(B) is " + kb + "x" + n
                    + " (B " + Arrays.toString(b) + ", transB=" + transB + ")");
        }
        long[] y = {m, n};
        if (inputShapes.length == 3 && inputShapes[2] != null) {
            Broadcasting.requireUnidirectional(Shapes.checked(inputShapes[2]), y, "Gemm: C");
        }
        return new long[][] {y};
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor a = inputs.get(0);
        Tensor b = inputs.get(1);
        Tensor c = inputs.size() > 2 ? inputs.get(2) : null;
        Tensor y = outputs.get(0);
        Shapes.requireType("Gemm", "input A", a, ElementType.FLOAT);
        Shapes.requireType("Gemm", "input B", b, ElementType.FLOAT);
        Shapes.requireType("Gemm", "output Y", y, ElementType.FLOAT);
        if (c != null) {
            Shapes.requireType("Gemm", "input C", c, ElementType.FLOAT);
        }
        long[][] expected = outputShapes(Shapes.shapesOf(inputs));
        Shapes.requireOutputShapes("Gemm", outputs, expected);
        long m = expected[0][0];
        long n = expected[0][1];
        long k = transA ? a.shape()[0] : a.shape()[1];

        // Like ONNX Runtime, a zero beta ignores C entirely (so NaN or inf in C does not leak through).
        if (c != null && beta != 0f) {
            fillWithScaledC(c, y.data(), m, n);
        } else {
            y.data().fill((byte) 0);
        }
        if (m == 0 || n == 0 || k == 0) {
            return;
        }
        new FloatMatrixProduct(k, n).multiplyAccumulate(a.data(), 0, transA, b.data(), 0, transB, y.data(), 0, m, k, n, alpha);
    }

    /** {@code Y[i,j] = beta * C[i,j]} with C broadcast (stride 0 along its stretched dimensions). */
    private void fillWithScaledC(Tensor c, MemorySegment y, long m, long n) {
        long[] strides = Broadcasting.strides(c.shape(), 2);
        long rowStride = strides[0];
        long colStride = strides[1];
        MemorySegment cs = c.data();
        for (long i = 0, yi = 0, ci = 0; i < m; i++, ci += rowStride) {
            for (long j = 0, cj = ci; j < n; j++, cj += colStride, yi++) {
                y.setAtIndex(F, yi, beta * cs.getAtIndex(F, cj));
            }
        }
    }
}
