package dev.javaep.cpu.kernel.matmul;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.MatMulOps.GemmGeometry;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Gemm on float32 (float16 through float32 copies), every opset version: {@code Y = alpha * op(A) * op(B) + beta * C},
 * where C is optional from opset 11 and broadcasts unidirectionally to (M, N) ({@link GemmGeometry}; before opset 7
 * only with {@code broadcast=1}).
 */
record GemmKernel(GemmGeometry.Attributes attributes, ElementType type) implements CpuKernel {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;

    /** The float32 kernel of Gemm 7 and later. */
    GemmKernel(float alpha, float beta, boolean transA, boolean transB) {
        this(new GemmGeometry.Attributes(alpha, beta, transA, transB, true), ElementType.FLOAT);
    }

    private GemmGeometry geometry(long[][] inputShapes) {
        if (inputShapes.length < 2 || inputShapes.length > 3) {
            throw new IllegalArgumentException("Gemm takes 2 or 3 inputs, got " + inputShapes.length);
        }
        long[] c = inputShapes.length == 3 && inputShapes[2] != null ? Shapes.checked(inputShapes[2]) : null;
        return GemmGeometry.of(Shapes.checked(inputShapes[0]), Shapes.checked(inputShapes[1]), c, attributes);
    }

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        return new long[][] {geometry(inputShapes).outputShape()};
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
        GemmGeometry g = geometry(Shapes.shapesOf(inputs));
        Shapes.requireOutputShapes("Gemm", outputs, new long[][] {g.outputShape()});
        if (type == ElementType.FLOAT16) {
            try (Arena arena = Arena.ofShared()) { // shared: the kernel threads read and write it
                Tensor wide = Float16Copies.scratch(arena, y);
                multiply(Float16Copies.widened(arena, a).data(), Float16Copies.widened(arena, b).data(),
                        c == null ? null : Float16Copies.widened(arena, c).data(), wide.data(), g);
                Float16Copies.narrow(wide, y);
            }
        } else {
            multiply(a.data(), b.data(), c == null ? null : c.data(), y.data(), g);
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
