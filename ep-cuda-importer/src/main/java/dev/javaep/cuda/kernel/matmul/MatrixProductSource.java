package dev.javaep.cuda.kernel.matmul;

import static dev.javaep.cuda.kernel.CudaSource.floatStorage;
import static dev.javaep.cuda.kernel.CudaSource.floatSuffix;

import dev.javaep.cuda.kernel.CudaSource;
import dev.javaep.spi.ElementType;
import java.util.Map;

/**
 * The CUDA C matrix product: {@code Y = alpha * op(A) * op(B) + beta * C} for every batch of a broadcast MatMul or
 * a Gemm, on float or half storage with float accumulation. The Java reference is JavaCpu's
 * {@code FloatMatrixProduct} (through {@code MatMulKernel} and {@code GemmKernel}).
 *
 * <p>A block of 256 threads computes a 64x64 tile of Y, walking K in steps of 16: each step it stages a 64x16 slice
 * of op(A) and a 16x64 slice of op(B) in shared memory (threads load along whichever dimension is contiguous in
 * memory, so a transposed operand is read coalesced too), then each thread accumulates a 4x4 set of outputs spaced 16
 * apart (neighbouring threads read neighbouring shared-memory words and write neighbouring outputs). Batches are the
 * grid's z: a batch index becomes A's and B's offsets through the broadcast batch strides ({@code Dims}, in elements),
 * so A [1, 4, 64, 32] x B [4, 32, 64] or A [2, 1, m, k] x B [3, k, n] need no copies.
 */
final class MatrixProductSource {
    private MatrixProductSource() {}

    /** The tile of Y one block computes, and the K step. */
    static final int TILE = 64;
    static final int STEP = 16;
    static final int THREADS = 256;

    private static final String GEMM = """
            extern "C" __global__ void __launch_bounds__(256) NAME(
                    T* y, const T* a, const T* b, const T* c, int M, int N, int K, int transA, int transB,
                    float alpha, float beta, long long cRowStride, long long cColStride, int hasC,
                    int batchRank, Dims batch, Dims aBatchStride, Dims bBatchStride, long long firstBatch) {
                __shared__ float As[16][64 + 4];
                __shared__ float Bs[16][64 + 4];
                long long z = firstBatch + blockIdx.z;
                long long rest = z;
                long long aOffset = 0;
                long long bOffset = 0;
                for (int d = batchRank - 1; d >= 0; d--) {
                    long long i = rest % batch.d[d];
                    rest /= batch.d[d];
                    aOffset += i * aBatchStride.d[d];
                    bOffset += i * bBatchStride.d[d];
                }
                a += aOffset;
                b += bOffset;
                y += z * (long long) M * N;
                const int tid = threadIdx.x;
                const int tx = tid & 15;
                const int ty = tid >> 4;
                const int m0 = blockIdx.y * 64;
                const int n0 = blockIdx.x * 64;
                float acc[4][4];
                for (int i = 0; i < 4; i++) for (int j = 0; j < 4; j++) acc[i][j] = 0.0f;
                for (int k0 = 0; k0 < K; k0 += 16) {
                    for (int l = 0; l < 4; l++) {
                        int idx = tid + 256 * l;
                        // op(A)[m0 + i][k0 + p]: A is [M, K], or [K, M] when transposed
                        int i = transA ? (idx & 63) : (idx >> 4);
                        int p = transA ? (idx >> 6) : (idx & 15);
                        int gm = m0 + i;
                        int gk = k0 + p;
                        As[p][i] = (gm < M && gk < K) ? ld(a, transA ? (long long) gk * M + gm : (long long) gm * K + gk) : 0.0f;
                        // op(B)[k0 + p][n0 + j]: B is [K, N], or [N, K] when transposed
                        int j = transB ? (idx >> 4) : (idx & 63);
                        int q = transB ? (idx & 15) : (idx >> 6);
                        int gn = n0 + j;
                        int gq = k0 + q;
                        Bs[q][j] = (gn < N && gq < K) ? ld(b, transB ? (long long) gn * K + gq : (long long) gq * N + gn) : 0.0f;
                    }
                    __syncthreads();
                    for (int p = 0; p < 16; p++) {
                        float av[4];
                        float bv[4];
                        for (int i = 0; i < 4; i++) av[i] = As[p][ty + 16 * i];
                        for (int j = 0; j < 4; j++) bv[j] = Bs[p][tx + 16 * j];
                        for (int i = 0; i < 4; i++) for (int j = 0; j < 4; j++) acc[i][j] += av[i] * bv[j];
                    }
                    __syncthreads();
                }
                for (int i = 0; i < 4; i++) {
                    int row = m0 + ty + 16 * i;
                    if (row >= M) continue;
                    for (int j = 0; j < 4; j++) {
                        int col = n0 + tx + 16 * j;
                        if (col >= N) continue;
                        float v = alpha * acc[i][j];
                        // like JavaCpu and ONNX Runtime, beta == 0 ignores C (NaN in C does not leak through)
                        if (hasC && beta != 0.0f) v += beta * ld(c, row * cRowStride + col * cColStride);
                        st(y, (long long) row * N + col, v);
                    }
                }
            }
            """;

    /** The product on {@code float} or {@code half} storage. */
    static CudaSource of(ElementType type) {
        String entry = "matrix_product_" + floatSuffix(type);
        return CudaSource.of(entry, GEMM, Map.of("T", floatStorage(type), "NAME", entry));
    }
}
