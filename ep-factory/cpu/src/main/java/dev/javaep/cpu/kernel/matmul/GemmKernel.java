package dev.javaep.cpu.kernel.matmul;

import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.MatMulOps.GemmGeometry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Gemm on float32 (float16 through float32 copies), every opset version: {@code Y = alpha * op(A) * op(B) + beta * C},
 * where C is optional from opset 11 and broadcasts unidirectionally to (M, N) ({@link GemmGeometry}; before opset 7
 * only with {@code broadcast=1}). The geometry (and float16's float32 buffers) are planned once per set of input shapes.
 */
record GemmKernel(GemmGeometry.Attributes attributes, ElementType type) implements PlannedKernel {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;

    /** The float32 kernel of Gemm 7 and later. */
    GemmKernel(float alpha, float beta, boolean transA, boolean transB) {
        this(new GemmGeometry.Attributes(alpha, beta, transA, transB, true), ElementType.FLOAT);
    }

    @Override
    public Plan plan(long[][] inputShapes) {
        if (inputShapes.length < 2 || inputShapes.length > 3) {
            throw new IllegalArgumentException("Gemm takes 2 or 3 inputs, got " + inputShapes.length);
        }
        long[] a = Shapes.checked(inputShapes[0]);
        long[] b = Shapes.checked(inputShapes[1]);
        long[] c = inputShapes.length == 3 && inputShapes[2] != null ? Shapes.checked(inputShapes[2]) : null;
        return new GemmPlan(GemmGeometry.of(a, b, c, attributes), a, b, c);
    }

    /** The geometry of one set of input shapes, and for float16 the float32 copies' buffers. */
    private final class GemmPlan extends ShapedPlan {
        private final GemmGeometry g;
        private final MemorySegment wideA;
        private final MemorySegment wideB;
        private final MemorySegment wideC;
        private final MemorySegment wideY;

        GemmPlan(GemmGeometry g, long[] a, long[] b, long[] c) {
            super(new long[][] {g.outputShape()});
            this.g = g;
            boolean half = type == ElementType.FLOAT16;
            this.wideA = half ? Float16Copies.buffer(a) : null;
            this.wideB = half ? Float16Copies.buffer(b) : null;
            this.wideC = half && c != null ? Float16Copies.buffer(c) : null;
            this.wideY = half ? Float16Copies.buffer(g.outputShape()) : null;
        }

        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            Tensor a = inputs.get(0);
            Tensor b = inputs.get(1);
            Tensor c = inputs.size() > 2 ? inputs.get(2) : null;
            Tensor y = outputs.get(0);
            Shapes.requireType("Gemm", "input A", a, type);
            Shapes.requireType("Gemm", "input B", b, type);
            Shapes.requireType("Gemm", "output Y", y, type);
            if (c != null) {
                Shapes.requireType("Gemm", "input C", c, type);
            }
            Shapes.requireOutputShapes("Gemm", outputs, outputShapes());
            if (type == ElementType.FLOAT16) {
                multiply(Float16Copies.widen(a, wideA), Float16Copies.widen(b, wideB),
                        c == null ? null : Float16Copies.widen(c, wideC), wideY, g);
                Float16Copies.narrow(wideY, y);
            } else {
                multiply(a.data(), b.data(), c == null ? null : c.data(), y.data(), g);
            }
        }
    }

    private void multiply(MemorySegment a, MemorySegment b, MemorySegment c, MemorySegment y, GemmGeometry g) {
        long m = g.m();
        long n = g.n();
        long k = g.k();
        // Like ONNX Runtime, a zero beta ignores C entirely (so NaN or inf in C does not leak through).
        if (c != null && attributes.beta() != 0f) {
            fillWithScaledC(c, y, g);
        } else {
            y.fill((byte) 0);
        }
        if (m == 0 || n == 0 || k == 0) {
            return;
        }
        FloatMatrixProduct.multiplyAccumulate(a, 0, attributes.transA(), b, 0, attributes.transB(), y, 0,
                m, k, n, attributes.alpha());
    }

    /** {@code Y[i,j] = beta * C[i,j]} with C broadcast (stride 0 along its stretched dimensions). */
    private void fillWithScaledC(MemorySegment cs, MemorySegment y, GemmGeometry g) {
        float beta = attributes.beta();
        for (long i = 0, yi = 0, ci = 0; i < g.m(); i++, ci += g.cRowStride()) {
            for (long j = 0, cj = ci; j < g.n(); j++, cj += g.cColumnStride(), yi++) {
                y.setAtIndex(F, yi, beta * cs.getAtIndex(F, cj));
            }
        }
    }
}
