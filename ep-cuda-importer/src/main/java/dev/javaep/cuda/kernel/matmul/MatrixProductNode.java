package dev.javaep.cuda.kernel.matmul;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.kernel.CudaSource;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.ptx.CudaKernel;
import dev.javaep.cuda.kernel.ptx.LaunchShape;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.MatMulOps.GemmGeometry;
import dev.javaep.spi.ops.MatMulOps.MatMulGeometry;
import java.util.Arrays;

/**
 * MatMul ({@link MatMulGeometry}: 1-D operands promoted, batch dimensions broadcast) and Gemm ({@link GemmGeometry}:
 * alpha·op(A)·op(B) + beta·C, C broadcast to [M, N]).
 *
 * <p>Float32 runs on the generated PTX GEMM when each operand's batches are either whole or a single matrix (the
 * batches are then the grid's z); a MatMul whose batches broadcast otherwise ([2, 1, m, k] x [3, k, n]) and every
 * float16 product run on the CUDA C tiled product ({@link MatrixProductSource}), which finds each batch's operands
 * through the broadcast strides. Without NVRTC a float32 MatMul of that kind launches the PTX GEMM once per output
 * matrix instead.
 */
public final class MatrixProductNode extends CudaNode {
    enum Kind { MATMUL, GEMM }

    private final Kind kind;
    private final GemmGeometry.Attributes attributes;
    private final ElementType type;
    /** The CUDA C product for this element type (compiled on first use; never for float32 Gemm). */
    private final CudaSource source;

    MatrixProductNode(CudaDevice device, Kind kind, GemmGeometry.Attributes attributes, ElementType type) {
        super(device, kind == Kind.MATMUL ? "MatMul" : "Gemm");
        this.kind = kind;
        this.attributes = attributes;
        this.type = type;
        this.source = MatrixProductSource.of(type);
    }

    /** Whether a product on {@code type} needs NVRTC (float32 can always fall back on the PTX GEMM). */
    static boolean needsNvrtc(ElementType type) {
        return type != ElementType.FLOAT;
    }

    @Override
    protected void run(KernelContext context, CudaKernelLibrary kernels, long stream) {
        if (kind == Kind.GEMM) {
            gemm(context, kernels, stream);
        } else {
            matmul(context, kernels, stream);
        }
    }

    private void gemm(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor a = typedInput(context, 0, type);
        Tensor b = typedInput(context, 1, type);
        Tensor c = context.inputCount() > 2 && context.input(2) != null ? typedInput(context, 2, type) : null;
        GemmGeometry g = GemmGeometry.of(a.shape(), b.shape(), c == null ? null : c.shape(), attributes);
        Tensor y = context.output(0, g.outputShape());
        if (g.m() == 0 || g.n() == 0) {
            return;
        }
        long cAddress = c == null ? 0 : address(c);
        if (type == ElementType.FLOAT) {
            launchPtx(kernels, stream, address(y), address(a), address(b), cAddress, g.m(), g.n(), g.k(),
                    attributes.transA(), attributes.transB(), attributes.alpha(), attributes.beta(), g.cRowStride(),
                    g.cColumnStride(), g.hasC(), 0, 0, 0, 1);
        } else {
            launchSource(kernels, stream, address(y), address(a), address(b), cAddress, g.m(), g.n(), g.k(),
                    attributes.transA(), attributes.transB(), attributes.alpha(), attributes.beta(), g.cRowStride(),
                    g.cColumnStride(), g.hasC(), new long[0], new long[0], new long[0]);
        }
    }

    private void matmul(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor a = typedInput(context, 0, type);
        Tensor b = typedInput(context, 1, type);
        MatMulGeometry g = MatMulGeometry.of(a.shape(), b.shape());
        Tensor y = context.output(0, g.outputShape());
        if (y.elementCount() == 0) {
            return;
        }
        long m = g.m();
        long k = g.k();
        long n = g.n();
        long batches = g.batchCount();
        boolean simple = g.simpleBatches();
        if (type == ElementType.FLOAT && (simple || !CudaKernelLibrary.compilesSources())) {
            if (k == 0) {
                kernels.driver().memsetD32Async(address(y), 0, y.elementCount(), stream);
                return;
            }
            if (simple) {
                boolean aAll = Arrays.stream(g.aBatchStrides()).anyMatch(s -> s != 0);
                boolean bAll = Arrays.stream(g.bBatchStrides()).anyMatch(s -> s != 0);
                launchPtx(kernels, stream, address(y), address(a), address(b), 0, m, n, k, false, false, 1f, 0f, 0, 0,
                        false, aAll ? m * k : 0, bAll ? k * n : 0, m * n, batches);
                return;
            }
            // float32 without NVRTC: one PTX launch per output matrix
            long[] batch = g.batch();
            long[] index = new long[batch.length];
            for (long z = 0; z < batches; z++) {
                long aMatrix = 0;
                long bMatrix = 0;
                for (int d = 0; d < batch.length; d++) {
                    aMatrix += index[d] * g.aBatchStrides()[d];
                    bMatrix += index[d] * g.bBatchStrides()[d];
                }
                launchPtx(kernels, stream, address(y) + z * m * n * 4, address(a) + aMatrix * m * k * 4,
                        address(b) + bMatrix * k * n * 4, 0, m, n, k, false, false, 1f, 0f, 0, 0, false, 0, 0, 0, 1);
                for (int d = batch.length - 1; d >= 0 && ++index[d] == batch[d]; d--) {
                    index[d] = 0;
                }
            }
            return;
        }
        long[] aStrides = g.aBatchStrides().clone();
        long[] bStrides = g.bBatchStrides().clone();
        for (int d = 0; d < aStrides.length; d++) {
            aStrides[d] *= m * k; // matrices to elements
            bStrides[d] *= k * n;
        }
        launchSource(kernels, stream, address(y), address(a), address(b), 0, m, n, k, false, false, 1f, 0f, 0, 0, false,
                g.batch(), aStrides, bStrides);
    }

    /** The CUDA C product over every batch of {@code batch} (A's and B's batch strides in elements). */
    private void launchSource(CudaKernelLibrary kernels, long stream, long y, long a, long b, long c, long m, long n, long k,
                              boolean transA, boolean transB, float alpha, float beta, long cRowStride, long cColStride,
                              boolean hasC, long[] batch, long[] aStrides, long[] bStrides) {
        requireIntDimensions(m, n, k);
        if (batch.length > 8) {
            throw new IllegalArgumentException(op + ": " + batch.length + " batch dimensions exceed the kernel's 8");
        }
        long batches = Shapes.product(batch, 0, batch.length);
        long gridX = (n + MatrixProductSource.TILE - 1) / MatrixProductSource.TILE;
        long gridY = (m + MatrixProductSource.TILE - 1) / MatrixProductSource.TILE;
        if (gridY > LaunchShape.MAX_GRID_YZ) {
            throw new IllegalArgumentException(op + ": " + m + " rows exceed one launch (" + LaunchShape.MAX_GRID_YZ * 64L + ")");
        }
        for (long first = 0; first < batches; first += LaunchShape.MAX_GRID_YZ) {
            int count = (int) Math.min(LaunchShape.MAX_GRID_YZ, batches - first);
            KernelArguments args = KernelArguments.begin().u64(y).u64(a).u64(b).u64(c)
                    .i32((int) m).i32((int) n).i32((int) k).i32(transA ? 1 : 0).i32(transB ? 1 : 0)
                    .f32(alpha).f32(beta).i64(cRowStride).i64(cColStride).i32(hasC ? 1 : 0)
                    .i32(batch.length).longs(batch, 8).longs(aStrides, 8).longs(bStrides, 8).i64(first);
            kernels.launch(source, new LaunchShape((int) gridX, (int) gridY, count, MatrixProductSource.THREADS, 1, 1), 0,
                    stream, args);
        }
    }

    private void requireIntDimensions(long m, long n, long k) {
        if (m > Integer.MAX_VALUE || n > Integer.MAX_VALUE || k > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(op + ": [" + m + " × " + k + "] · [" + k + " × " + n
                    + "] exceeds the kernel's 32-bit dimensions");
        }
    }

    private void launchPtx(CudaKernelLibrary kernels, long stream, long y, long a, long b, long c, long m, long n, long k,
                           boolean transA, boolean transB, float alpha, float beta, long cRowStride, long cColStride,
                           boolean hasC, long aBatchStride, long bBatchStride, long yBatchStride, long batches) {
        requireIntDimensions(m, n, k);
        for (long first = 0; first < batches; first += LaunchShape.MAX_GRID_YZ) {
            int count = (int) Math.min(LaunchShape.MAX_GRID_YZ, batches - first);
            KernelArguments args = KernelArguments.begin()
                    .u64(y + first * yBatchStride * 4).u64(a + first * aBatchStride * 4).u64(b + first * bBatchStride * 4).u64(c)
                    .u32((int) m).u32((int) n).u32((int) k).u32(transA ? 1 : 0).u32(transB ? 1 : 0)
                    .f32(alpha).f32(beta).u64(cRowStride).u64(cColStride).u32(hasC ? 1 : 0)
                    .u64(aBatchStride).u64(bBatchStride).u64(yBatchStride);
            kernels.launch(CudaKernel.GEMM_F32, LaunchShape.gemm(m, n, count), stream, args);
        }
    }
}
