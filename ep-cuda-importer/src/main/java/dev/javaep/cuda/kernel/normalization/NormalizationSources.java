package dev.javaep.cuda.kernel.normalization;

import static dev.javaep.cuda.kernel.CudaSource.floatStorage;
import static dev.javaep.cuda.kernel.CudaSource.floatSuffix;

import dev.javaep.cuda.kernel.CudaSource;
import dev.javaep.spi.ElementType;
import java.util.Map;

/**
 * The CUDA C of the normalisation kernels, one template each, specialised by element type: {@code T} for X and
 * Y, {@code P} for scale and bias, {@code Q} for BatchNormalization's mean and var ({@code float} or {@code half};
 * everything is computed in float). Their Java references are JavaCpu's {@code BatchNormalizationKernel} and
 * {@code RowNormalizationKernel}.
 */
final class NormalizationSources {
    private NormalizationSources() {}

    /** {@code block_sum(v, partial)}, the sum of v over the block that training BatchNormalization and ROW_NORM reduce with. */
    private static final String BLOCK_SUM = """
            __device__ float block_sum(float v, float* partial) {
                for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
                int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
                __syncthreads();
                if (lane == 0) partial[warp] = v;
                __syncthreads();
                v = lane < (int) (blockDim.x >> 5) ? partial[lane] : 0.f;
                for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
                return v;
            }
            """;

    /**
     * BatchNormalization in inference, one thread per element: the element's parameters are at
     * {@code p = per_element ? i % (channels * inner) : i / inner % channels}.
     */
    private static final String BATCH_NORM = """
            extern "C" __global__ void NAME(T* y, const T* x, const P* scale, const P* bias, const Q* mean, const Q* var,
                    long long n, long long channels, long long inner, int per_element, float epsilon) {
                GRID_STRIDE(i, n) {
                    long long p = per_element ? i % (channels * inner) : i / inner % channels;
                    float a = ld(scale, p) / sqrtf(ld(var, p) + epsilon);
                    st(y, i, (ld(x, i) - ld(mean, p)) * a + ld(bias, p));
                }
            }
            """;

    /**
     * BatchNormalization in training mode: one block per channel (a grid-stride over channels) takes the batch mean
     * and population variance of the channel's {@code outer x inner} elements in float, in two passes reduced like
     * ROW_NORM's, normalises them with it in a third pass, and writes the running statistics
     * {@code input * momentum + batch * (1 - momentum)} where those outputs are asked for (null otherwise).
     */
    private static final String BATCH_NORM_TRAINING = BLOCK_SUM + """

            extern "C" __global__ void NAME(T* y, const T* x, const P* scale, const P* bias, const Q* mean,
                    const Q* var, Q* running_mean, Q* running_var, long long outer, long long channels,
                    long long inner, float epsilon, float momentum) {
                __shared__ float partial[32];
                const long long count = outer * inner;
                for (long long c = blockIdx.x; c < channels; c += gridDim.x) {
                    float sum = 0.f;
                    for (long long k = threadIdx.x; k < count; k += blockDim.x) {
                        sum += ld(x, (k / inner * channels + c) * inner + k % inner);
                    }
                    const float m = count == 0 ? 0.f : block_sum(sum, partial) / (float) count;
                    float squares = 0.f;
                    for (long long k = threadIdx.x; k < count; k += blockDim.x) {
                        float d = ld(x, (k / inner * channels + c) * inner + k % inner) - m;
                        squares += d * d;
                    }
                    const float v = count == 0 ? 0.f : block_sum(squares, partial) / (float) count;
                    const float a = ld(scale, c) / sqrtf(v + epsilon);
                    const float b = ld(bias, c);
                    for (long long k = threadIdx.x; k < count; k += blockDim.x) {
                        long long i = (k / inner * channels + c) * inner + k % inner;
                        st(y, i, (ld(x, i) - m) * a + b);
                    }
                    if (threadIdx.x == 0) {
                        if (running_mean) st(running_mean, c, ld(mean, c) * momentum + m * (1.f - momentum));
                        if (running_var) st(running_var, c, ld(var, c) * momentum + v * (1.f - momentum));
                    }
                }
            }
            """;

    /**
     * Instance, layer and group normalisation: one block per row (a grid-stride over rows), each thread summing a
     * strided share of the row in float; two passes (the mean, then the squared deviations from it) reduced across
     * the block with warp shuffles and one shared-memory exchange. A row's parameters are at
     * {@code group * stride + position / divisor} (the layout's ParameterIndex); bias and the statistics outputs may
     * be null.
     */
    private static final String ROW_NORM = """
            // The sum of v over the block: each warp reduces by shuffles, warp totals meet in shared memory, and every
            // warp adds them up, so every thread returns the total. blockDim.x is a multiple of 32.
            """ + BLOCK_SUM + """

            __device__ __forceinline__ long long parameter(long long group, long long stride, long long position,
                    long long divisor, long long length) {
                return group * stride + (divisor == 1 ? position : divisor >= length ? 0 : position / divisor);
            }

            extern "C" __global__ void NAME(T* y, const T* x, const P* scale, const P* bias, float* mean_out,
                    float* inv_out, long long rows, long long groups, long long length, long long scale_stride,
                    long long scale_divisor, long long bias_stride, long long bias_divisor, float epsilon) {
                __shared__ float partial[32];
                for (long long row = blockIdx.x; row < rows; row += gridDim.x) {
                    const T* xr = x + row * length;
                    T* yr = y + row * length;
                    long long group = row % groups;
                    float sum = 0.f;
                    for (long long i = threadIdx.x; i < length; i += blockDim.x) sum += ld(xr, i);
                    float mean = length == 0 ? 0.f : block_sum(sum, partial) / (float) length;
                    float squares = 0.f;
                    for (long long i = threadIdx.x; i < length; i += blockDim.x) {
                        float d = ld(xr, i) - mean;
                        squares += d * d;
                    }
                    float variance = length == 0 ? 0.f : block_sum(squares, partial) / (float) length;
                    float inverse = 1.f / sqrtf(variance + epsilon);
                    for (long long i = threadIdx.x; i < length; i += blockDim.x) {
                        float v = (ld(xr, i) - mean) * inverse
                                * ld(scale, parameter(group, scale_stride, i, scale_divisor, length));
                        if (bias) v += ld(bias, parameter(group, bias_stride, i, bias_divisor, length));
                        st(yr, i, v);
                    }
                    if (threadIdx.x == 0) {
                        if (mean_out) mean_out[row] = mean;
                        if (inv_out) inv_out[row] = inverse;
                    }
                }
            }
            """;

    static CudaSource batchNorm(ElementType x, ElementType parameters, ElementType statistics) {
        String entry = "batch_norm_" + floatSuffix(x) + "_" + floatSuffix(parameters) + "_" + floatSuffix(statistics);
        return CudaSource.of(entry, BATCH_NORM.replace("NAME", entry),
                Map.of("T", floatStorage(x), "P", floatStorage(parameters), "Q", floatStorage(statistics)));
    }

    static CudaSource batchNormTraining(ElementType x, ElementType parameters, ElementType statistics) {
        String entry = "batch_norm_training_" + floatSuffix(x) + "_" + floatSuffix(parameters) + "_" + floatSuffix(statistics);
        return CudaSource.of(entry, BATCH_NORM_TRAINING.replace("NAME", entry),
                Map.of("T", floatStorage(x), "P", floatStorage(parameters), "Q", floatStorage(statistics)));
    }

    static CudaSource rowNorm(ElementType x) {
        String entry = "row_norm_" + floatSuffix(x);
        return CudaSource.of(entry, ROW_NORM.replace("NAME", entry), Map.of("T", floatStorage(x), "P", floatStorage(x)));
    }
}
