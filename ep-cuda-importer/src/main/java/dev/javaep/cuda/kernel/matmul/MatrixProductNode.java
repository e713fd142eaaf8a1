package dev.javaep.cuda.kernel.matmul;

import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.CudaNode;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.ptx.CudaKernel;
import dev.javaep.cuda.kernel.ptx.LaunchShape;
import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import java.util.Arrays;

/**
 * MatMul (numpy semantics: 1-D operands promoted, batch dimensions broadcast) and Gemm
 * (alpha·A'·B' + beta·C, C broadcast to [M, N]) on one tiled kernel. Batches run as the grid's z
 * dimension when each operand's batch is either whole or a single matrix; other broadcasts launch
 * once per output matrix.
 */
public final class MatrixProductNode extends CudaNode {
    enum Kind { MATMUL, GEMM }


    private final Kind kind;
    private final float alpha;
    private final float beta;
    private final boolean transA;
    private final boolean transB;

    MatrixProductNode(CudaDevice device, Kind kind, float alpha, float beta, boolean transA, boolean transB) {
        super(device, kind == Kind.MATMUL ? "MatMul" : "Gemm");
        this.kind = kind;
        this.alpha = alpha;
        this.beta = beta;
        this.transA = transA;
        this.transB = transB;
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
        Tensor a = floatInput(context, 0);
        Tensor b = floatInput(context, 1);
        Tensor c = context.inputCount() > 2 ? context.input(2) : null;
        if (a.shape().length != 2 || b.shape().length != 2) {
            throw new IllegalArgumentException("Gemm: A and B must be 2-D, got " + shape(a.shape()) + " and " + shape(b.shape()));
        }
        long m = transA ? a.shape()[1] : a.shape()[0];
        long k = transA ? a.shape()[0] : a.shape()[1];
        long kb = transB ? b.shape()[1] : b.shape()[0];
        long n = transB ? b.shape()[0] : b.shape()[1];
        if (k != kb) {
            throw new IllegalArgumentException("Gemm: inner dimensions differ: A' is [" + m + ", " + k + "], B' is [" + kb + ", " + n + "]");
        }
        long cRowStride = 0;
        long cColStride = 0;
        if (c != null) {
            floatInput(context, 2);
            long[] target = {m, n};
            Broadcasting.requireUnidirectional(c.shape(), target, "Gemm: C");
            long[] strides = Broadcasting.strides(c.shape(), 2);
            cRowStride = strides[0];
            cColStride = strides[1];
        }
        Tensor y = context.output(0, new long[] {m, n});
        if (m == 0 || n == 0) {
            return;
        }
        launch(kernels, stream, address(y), address(a), address(b), c == null ? 0 : address(c), m, n, k,
                transA, transB, alpha, beta, cRowStride, cColStride, c != null, 0, 0, 0, 1);
    }

    private void matmul(KernelContext context, CudaKernelLibrary kernels, long stream) {
        Tensor a = floatInput(context, 0);
        Tensor b = floatInput(context, 1);
        long[] as = a.shape().length == 1 ? new long[] {1, a.shape()[0]} : a.shape();
        long[] bs = b.shape().length == 1 ? new long[] {b.shape()[0], 1} : b.shape();
        if (as.length < 2 || bs.length < 2) {
            throw new IllegalArgumentException("MatMul: scalar operands are not allowed");
        }
        long m = as[as.length - 2];
        long k = as[as.length - 1];
        long n = bs[bs.length - 1];
        if (bs[bs.length - 2] != k) {
            throw new IllegalArgumentException("MatMul: " + shape(a.shape()) + " × " + shape(b.shape())
                    + ": inner dimensions " + k + " and " + bs[bs.length - 2] + " differ");
        }
        long[] aBatch = Arrays.copyOf(as, as.length - 2);
        long[] bBatch = Arrays.copyOf(bs, bs.length - 2);
        long[] batch = Broadcasting.multidirectional(aBatch, bBatch);
        long[] outShape = outputShape(a.shape().length, b.shape().length, batch, m, n);
        Tensor y = context.output(0, outShape);
        long batches = product(batch, 0, batch.length);
        if (y.elementCount() == 0) {
            return;
        }
        if (k == 0) {
            kernels.driver().memsetD32Async(address(y), 0, y.elementCount(), stream);
            return;
        }
        long aMatrix = m * k * 4;
        long bMatrix = k * n * 4;
        long yMatrix = m * n * 4;
        long aBatches = product(aBatch, 0, aBatch.length);
        long bBatches = product(bBatch, 0, bBatch.length);
        boolean aSimple = aBatches == 1 || Arrays.equals(aligned(aBatch, batch.length), batch);
        boolean bSimple = bBatches == 1 || Arrays.equals(aligned(bBatch, batch.length), batch);
        if (aSimple && bSimple) {
            launch(kernels, stream, address(y), address(a), address(b), 0, m, n, k, false, false, 1f, 0f, 0, 0, false,
                    aBatches == 1 ? 0 : m * k, bBatches == 1 ? 0 : k * n, m * n, batches);
            return;
        }
        long[] aStrides = Broadcasting.strides(aBatch, batch.length);
        long[] bStrides = Broadcasting.strides(bBatch, batch.length);
        long[] index = new long[batch.length];
        for (long z = 0; z < batches; z++) {
            long aOffset = 0;
            long bOffset = 0;
            for (int d = 0; d < batch.length; d++) {
                aOffset += index[d] * aStrides[d];
                bOffset += index[d] * bStrides[d];
            }
            launch(kernels, stream, address(y) + z * yMatrix, address(a) + aOffset * aMatrix, address(b) + bOffset * bMatrix,
                    0, m, n, k, false, false, 1f, 0f, 0, 0, false, 0, 0, 0, 1);
            for (int d = batch.length - 1; d >= 0 && ++index[d] == batch[d]; d--) {
                index[d] = 0;
            }
        }
    }

    private static long[] aligned(long[] shape, int rank) {
        long[] result = new long[rank];
        for (int i = 0; i < rank; i++) {
            result[i] = Broadcasting.alignedDim(shape, rank, i);
        }
        return result;
    }

    /** numpy's MatMul output: broadcast batch, then [m, n] minus the dimensions 1-D operands lacked. */
    private static long[] outputShape(int aRank, int bRank, long[] batch, long m, long n) {
        long[] out = Arrays.copyOf(batch, batch.length + (aRank == 1 ? 0 : 1) + (bRank == 1 ? 0 : 1));
        int i = batch.length;
        if (aRank != 1) {
            out[i++] = m;
        }
        if (bRank != 1) {
            out[i] = n;
        }
        return out;
    }

    private static void launch(CudaKernelLibrary kernels, long stream, long y, long a, long b, long c, long m, long n, long k,
                               boolean transA, boolean transB, float alpha, float beta, long cRowStride, long cColStride,
                               boolean hasC, long aBatchStride, long bBatchStride, long yBatchStride, long batches) {
        if (m > Integer.MAX_VALUE || n > Integer.MAX_VALUE || k > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("MatMul/Gemm: [" + m + " × " + k + "] · [" + k + " × " + n
                    + "] exceeds the kernel's 32-bit dimensions");
        }
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
