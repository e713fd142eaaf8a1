package dev.javaep.cuda.kernel.conv;

import dev.javaep.cuda.kernel.CudaSource;
import dev.javaep.cuda.kernel.elementwise.ElementwiseKernels.FusableActivation;
import dev.javaep.spi.ElementType;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The CUDA C kernels of this family, one template each, specialised by {@code T} ({@code float} or {@code half};
 * arithmetic in float either way). Every kernel takes the op's spatial description as one {@code Window} struct of
 * int64s ({@link WindowArguments}: 1-D and 2-D ops are 3-D ones with leading axes of size 1) and walks the output
 * with a grid-stride loop, one thread per output element (per few output channels for Conv). The Java reference
 * loops are JavaCpu's kernels in {@code dev.javaep.cpu.kernel.conv} ({@code FloatConvolution}, {@code FloatPooling}),
 * whose window arithmetic ({@code Window3.firstTap}/{@code endTap}) the {@code first_tap}/{@code end_tap} helpers repeat.
 */
final class ConvSources {
    private ConvSources() {}

    /** Output channels one Conv thread accumulates at once (each input value it loads serves all of them). */
    static final int CHANNELS_PER_THREAD = 4;

    private static final String WINDOW = """
            struct Window { long long v[%d]; };
            // Window.v: 0 N, 1 C, 2 M, 3 group, 4..6 input D H W, 7..9 output D H W, 10..12 kernel D H W,
            // 13..15 strides, 16..18 dilations, 19..21 pads at the beginning, 22..24 pads at the end, 25 count_include_pad,
            // 26 MaxPool's storage_order (1: column-major Indices)
            #define WINDOW_FIELDS(s) \\
                const int inD = (int) s.v[4], inH = (int) s.v[5], inW = (int) s.v[6]; \\
                const int outD = (int) s.v[7], outH = (int) s.v[8], outW = (int) s.v[9]; \\
                const int kD = (int) s.v[10], kH = (int) s.v[11], kW = (int) s.v[12]; \\
                const int strideD = (int) s.v[13], strideH = (int) s.v[14], strideW = (int) s.v[15]; \\
                const int dilD = (int) s.v[16], dilH = (int) s.v[17], dilW = (int) s.v[18]; \\
                const int padD = (int) s.v[19], padH = (int) s.v[20], padW = (int) s.v[21]; \\
                const long long inSize = (long long) inD * inH * inW; \\
                const long long outSize = (long long) outD * outH * outW;
            // the epilogue: ACTIVATION is an expression of x0 and params.v[] (x0 itself unless an activation is fused)
            __device__ __forceinline__ float activate(float x0, const Floats8& params) { (void) params; return ACTIVATION; }
            // (no min() from a header: NVRTC compiles this without any)
            __device__ __forceinline__ int min_int(int a, int b) { return a < b ? a : b; }
            // the first tap j whose position start + j * dilation is >= 0
            __device__ __forceinline__ int first_tap(int start, int dilation) {
                return start >= 0 ? 0 : (-start + dilation - 1) / dilation;
            }
            // one past the last tap (at most k) whose position start + j * dilation is < in
            __device__ __forceinline__ int end_tap(int start, int dilation, int k, int in) {
                return start >= in ? 0 : min_int(k, (in - start + dilation - 1) / dilation);
            }
            """.formatted(WindowArguments.LONGS);

    /**
     * Conv, direct: thread {@code i} computes {@code MB} output channels of group g at one output position,
     * {@code y[n, m, o] = b[m] + sum over c in g, taps j inside X of x[n, c, o * stride - pad + j * dilation] * w[m, c, j]}.
     * Threads of a warp share n, g and the channel block and differ in the output column, so X is read coalesced and
     * W's loads are uniform across the warp.
     */
    private static final String CONV = WINDOW + """
            extern "C" __global__ void __launch_bounds__(256) ENTRY(T* __restrict__ y, const T* __restrict__ x,
                    const T* __restrict__ w, const T* __restrict__ bias, Window s, Floats8 params) {
                WINDOW_FIELDS(s)
                const int C = (int) s.v[1], M = (int) s.v[2], G = (int) s.v[3];
                const int Cg = C / G, Mg = M / G;
                const int K = kD * kH * kW;
                const int blocks = (Mg + MB - 1) / MB;
                const long long total = s.v[0] * G * blocks * outSize;
                GRID_STRIDE(i, total) {
                    long long r = i;
                    const int ow = (int) (r % outW); r /= outW;
                    const int oh = (int) (r % outH); r /= outH;
                    const int od = (int) (r % outD); r /= outD;
                    const int block = (int) (r % blocks); r /= blocks;
                    const int g = (int) (r % G);
                    const long long n = r / G;
                    const int m0 = g * Mg + block * MB;
                    const int count = min_int(MB, Mg - block * MB);
                    float acc[MB];
                    #pragma unroll
                    for (int j = 0; j < MB; j++) {
                        acc[j] = (bias != 0 && j < count) ? ld(bias, m0 + j) : 0.0f;
                    }
                    const int sd = od * strideD - padD, sh = oh * strideH - padH, sw = ow * strideW - padW;
                    const int d0 = first_tap(sd, dilD), d1 = end_tap(sd, dilD, kD, inD);
                    const int h0 = first_tap(sh, dilH), h1 = end_tap(sh, dilH, kH, inH);
                    const int w0 = first_tap(sw, dilW), w1 = end_tap(sw, dilW, kW, inW);
                    const T* xg = x + (n * C + (long long) g * Cg) * inSize;
                    const T* wm = w + (long long) m0 * Cg * K;
                    for (int c = 0; c < Cg; c++) {
                        const T* xc = xg + c * inSize;
                        const T* wc = wm + (long long) c * K;
                        for (int jd = d0; jd < d1; jd++) {
                            for (int jh = h0; jh < h1; jh++) {
                                const long long row = ((long long) (sd + jd * dilD) * inH + sh + jh * dilH) * inW + sw;
                                const int taps = (jd * kH + jh) * kW;
                                for (int jw = w0; jw < w1; jw++) {
                                    const float v = ld(xc, row + jw * dilW);
                                    #pragma unroll
                                    for (int j = 0; j < MB; j++) {
                                        if (j < count) {
                                            acc[j] += v * ld(wc, (long long) j * Cg * K + taps + jw);
                                        }
                                    }
                                }
                            }
                        }
                    }
                    const long long at = (n * M + m0) * outSize + ((long long) od * outH + oh) * outW + ow;
                    #pragma unroll
                    for (int j = 0; j < MB; j++) {
                        if (j < count) {
                            st(y, at + j * outSize, activate(acc[j], params));
                        }
                    }
                }
            }
            """;

    /**
     * ConvTranspose, gathered (no atomics): thread {@code i} computes output {@code (n, m, o)} from the inputs that
     * reach it, those {@code i} with {@code i * stride = o + pad - j * dilation} for a tap j. W is {@code [C, M/g, k...]}.
     */
    private static final String CONV_TRANSPOSE = WINDOW + """
            extern "C" __global__ void __launch_bounds__(256) ENTRY(T* __restrict__ y, const T* __restrict__ x,
                    const T* __restrict__ w, const T* __restrict__ bias, Window s) {
                WINDOW_FIELDS(s)
                const int C = (int) s.v[1], M = (int) s.v[2], G = (int) s.v[3];
                const int Cg = C / G, Mg = M / G;
                const int K = kD * kH * kW;
                const long long total = s.v[0] * M * outSize;
                GRID_STRIDE(i, total) {
                    long long r = i;
                    const int ow = (int) (r % outW); r /= outW;
                    const int oh = (int) (r % outH); r /= outH;
                    const int od = (int) (r % outD); r /= outD;
                    const int m = (int) (r % M);
                    const long long n = r / M;
                    const int g = m / Mg, mg = m - g * Mg;
                    float acc = bias != 0 ? ld(bias, m) : 0.0f;
                    const int td = od + padD, th = oh + padH, tw = ow + padW;
                    for (int c = 0; c < Cg; c++) {
                        const T* xc = x + (n * C + (long long) g * Cg + c) * inSize;
                        const T* wc = w + ((long long) (g * Cg + c) * Mg + mg) * K;
                        for (int jd = 0; jd < kD; jd++) {
                            const int pd = td - jd * dilD;
                            if (pd < 0) break;
                            if (pd % strideD != 0 || pd / strideD >= inD) continue;
                            for (int jh = 0; jh < kH; jh++) {
                                const int ph = th - jh * dilH;
                                if (ph < 0) break;
                                if (ph % strideH != 0 || ph / strideH >= inH) continue;
                                const long long row = ((long long) (pd / strideD) * inH + ph / strideH) * inW;
                                const int taps = (jd * kH + jh) * kW;
                                for (int jw = 0; jw < kW; jw++) {
                                    const int pw = tw - jw * dilW;
                                    if (pw < 0) break;
                                    if (pw % strideW != 0 || pw / strideW >= inW) continue;
                                    acc += ld(xc, row + pw / strideW) * ld(wc, taps + jw);
                                }
                            }
                        }
                    }
                    st(y, i, acc);
                }
            }
            """;

    /**
     * MaxPool (POOL_MAX 1: the largest tap inside X, NaN ignored as ONNX Runtime does; with {@code indices} not null,
     * also the position in X of the first tap holding it, row- or column-major as {@code PoolOps.MaxPoolIndices} says)
     * or AveragePool (the sum of the taps inside X over their count, or with count_include_pad over the taps inside the
     * padded input).
     */
    private static final String POOL = WINDOW + """
            extern "C" __global__ void __launch_bounds__(256) ENTRY(T* __restrict__ y, const T* __restrict__ x,
                    long long* __restrict__ indices, Window s) {
                WINDOW_FIELDS(s)
                const int padEndD = (int) s.v[22], padEndH = (int) s.v[23], padEndW = (int) s.v[24];
                const bool columnMajor = s.v[26] != 0;
                const bool includePad = s.v[25] != 0;
                const long long total = s.v[0] * s.v[1] * outSize;
                GRID_STRIDE(i, total) {
                    long long r = i;
                    const int ow = (int) (r % outW); r /= outW;
                    const int oh = (int) (r % outH); r /= outH;
                    const int od = (int) (r % outD);
                    const long long plane = r / outD;
                    const int sd = od * strideD - padD, sh = oh * strideH - padH, sw = ow * strideW - padW;
                    const int d0 = first_tap(sd, dilD), d1 = end_tap(sd, dilD, kD, inD);
                    const int h0 = first_tap(sh, dilH), h1 = end_tap(sh, dilH, kH, inH);
                    const int w0 = first_tap(sw, dilW), w1 = end_tap(sw, dilW, kW, inW);
                    const T* xp = x + plane * inSize;
                    float acc = POOL_MAX ? -3.402823466e38f : 0.0f;
                    // MaxPool's Indices: the first tap inside X until a larger one is found
                    int bd = sd + d0 * dilD, bh = sh + h0 * dilH, bw = sw + w0 * dilW;
                    for (int jd = d0; jd < d1; jd++) {
                        for (int jh = h0; jh < h1; jh++) {
                            const long long row = ((long long) (sd + jd * dilD) * inH + sh + jh * dilH) * inW + sw;
                            for (int jw = w0; jw < w1; jw++) {
                                const float v = ld(xp, row + jw * dilW);
                                if (POOL_MAX) {
                                    if (v > acc) {
                                        acc = v;
                                        bd = sd + jd * dilD;
                                        bh = sh + jh * dilH;
                                        bw = sw + jw * dilW;
                                    }
                                } else {
                                    acc += v;
                                }
                            }
                        }
                    }
                    if (POOL_MAX && indices != 0) {
                        indices[i] = plane * inSize + (columnMajor
                                ? bd + (long long) inD * (bh + (long long) inH * bw)
                                : ((long long) bd * inH + bh) * inW + bw);
                    }
                    if (!POOL_MAX) {
                        int count;
                        if (includePad) {
                            count = end_tap(sd + padD, dilD, kD, inD + padEndD + padD)
                                    * end_tap(sh + padH, dilH, kH, inH + padEndH + padH)
                                    * end_tap(sw + padW, dilW, kW, inW + padEndW + padW);
                        } else {
                            count = (d1 - d0) * (h1 - h0) * (w1 - w0);
                        }
                        acc /= (float) count;
                    }
                    st(y, i, acc);
                }
            }
            """;

    /** GlobalMaxPool/GlobalAveragePool: a block of 256 threads per (n, c) plane, reduced through shared memory. */
    private static final String GLOBAL_POOL = """
            extern "C" __global__ void __launch_bounds__(256) ENTRY(T* __restrict__ y, const T* __restrict__ x,
                    long long planes, long long size) {
                __shared__ float partial[256];
                for (long long p = blockIdx.x; p < planes; p += gridDim.x) {
                    const T* xp = x + p * size;
                    float acc = POOL_MAX ? -3.402823466e38f : 0.0f;
                    for (long long j = threadIdx.x; j < size; j += blockDim.x) {
                        const float v = ld(xp, j);
                        if (POOL_MAX) {
                            if (v > acc) acc = v;
                        } else {
                            acc += v;
                        }
                    }
                    partial[threadIdx.x] = acc;
                    __syncthreads();
                    for (int half_ = blockDim.x / 2; half_ > 0; half_ >>= 1) {
                        if (threadIdx.x < half_) {
                            const float other = partial[threadIdx.x + half_];
                            if (POOL_MAX) {
                                if (other > partial[threadIdx.x]) partial[threadIdx.x] = other;
                            } else {
                                partial[threadIdx.x] += other;
                            }
                        }
                        __syncthreads();
                    }
                    if (threadIdx.x == 0) {
                        st(y, p, POOL_MAX ? partial[0] : partial[0] / (float) size);
                    }
                    __syncthreads();
                }
            }
            """;

    /**
     * The epilogue of a convolution whose bias or activation the convolution itself did not apply (cuDNN's, or the
     * transposed kernel's): {@code y = activate(y + bias[m])} in place over each plane of Y ({@code blockIdx.y} walks the
     * planes n·M + m, so the bias is loaded once per block), 16 bytes per access (4 floats, 8 halves) where a plane's
     * length and address allow it.
     */
    private static final String BIAS_ACTIVATION = """
            // the epilogue: ACTIVATION is an expression of x0 and params.v[]
            __device__ __forceinline__ float activate(float x0, const Floats8& params) { (void) params; return ACTIVATION; }
            // 16 bytes of elements, loaded and stored at once (4 floats, 8 halves)
            struct __align__(16) Vec { T e[16 / sizeof(T)]; };
            // y = activation(y + bias[channel] + z): z (a residual of Y's shape, or null) is a following Add's other input
            extern "C" __global__ void __launch_bounds__(256) ENTRY(T* __restrict__ y, const T* __restrict__ bias,
                    const T* __restrict__ z, long long planes, long long spatial, long long channels, int vectors,
                    Floats8 params) {
                const int n = 16 / sizeof(T);
                for (long long plane = blockIdx.y; plane < planes; plane += gridDim.y) {
                    const float b = bias != 0 ? ld(bias, plane % channels) : 0.0f;
                    T* p = y + plane * spatial;
                    const T* r = z != 0 ? z + plane * spatial : 0;
                    if (vectors) {
                        Vec* q = (Vec*) p;
                        for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < spatial / n;
                                i += (long long) blockDim.x * gridDim.x) {
                            Vec v = q[i];
                            if (r != 0) {
                                Vec w = ((const Vec*) r)[i];
                                #pragma unroll
                                for (int k = 0; k < n; k++) {
                                    st(v.e, k, activate(ld(v.e, k) + b + ld(w.e, k), params));
                                }
                            } else {
                                #pragma unroll
                                for (int k = 0; k < n; k++) {
                                    st(v.e, k, activate(ld(v.e, k) + b, params));
                                }
                            }
                            q[i] = v;
                        }
                        continue;
                    }
                    for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < spatial;
                            i += (long long) blockDim.x * gridDim.x) {
                        st(p, i, activate(ld(p, i) + b + (r != 0 ? ld(r, i) : 0.0f), params));
                    }
                }
            }
            """;

    /** Threads per block of every kernel here (GLOBAL_POOL's shared array is sized for it). */
    static final int BLOCK = 256;

    private static final CudaSource[] CONV_SOURCES = {
            source("conv_direct_f32", CONV, "float", Map.of("MB", "1")),
            source("conv_direct_mb4_f32", CONV, "float", Map.of("MB", String.valueOf(CHANNELS_PER_THREAD))),
            source("conv_direct_f16", CONV, "half", Map.of("MB", "1")),
            source("conv_direct_mb4_f16", CONV, "half", Map.of("MB", String.valueOf(CHANNELS_PER_THREAD)))};
    private static final CudaSource[] CONV_TRANSPOSE_SOURCES = {
            source("conv_transpose_f32", CONV_TRANSPOSE, "float", Map.of()),
            source("conv_transpose_f16", CONV_TRANSPOSE, "half", Map.of())};
    private static final CudaSource[] POOL_SOURCES = {
            source("max_pool_f32", POOL, "float", Map.of("POOL_MAX", "1")),
            source("average_pool_f32", POOL, "float", Map.of("POOL_MAX", "0")),
            source("max_pool_f16", POOL, "half", Map.of("POOL_MAX", "1")),
            source("average_pool_f16", POOL, "half", Map.of("POOL_MAX", "0"))};
    private static final CudaSource[] GLOBAL_POOL_SOURCES = {
            source("global_max_pool_f32", GLOBAL_POOL, "float", Map.of("POOL_MAX", "1")),
            source("global_average_pool_f32", GLOBAL_POOL, "float", Map.of("POOL_MAX", "0")),
            source("global_max_pool_f16", GLOBAL_POOL, "half", Map.of("POOL_MAX", "1")),
            source("global_average_pool_f16", GLOBAL_POOL, "half", Map.of("POOL_MAX", "0"))};

    private static CudaSource source(String entry, String body, String type, Map<String, String> defines) {
        Map<String, String> all = new java.util.HashMap<>(defines);
        all.put("T", type);
        all.put("ENTRY", entry);
        all.putIfAbsent("ACTIVATION", "x0");
        return CudaSource.of(entry, body, all);
    }

    /** A kernel name part for an epilogue: "" for none. */
    private static String suffix(FusableActivation epilogue) {
        return epilogue == null ? "" : "_" + epilogue.name();
    }

    /**
     * Conv with {@code epilogue} applied to each output after the bias (null: the plain kernel); {@code blocked}: {@link
     * #CHANNELS_PER_THREAD} output channels per thread.
     */
    static CudaSource conv(ElementType type, boolean blocked, FusableActivation epilogue) {
        if (epilogue == null) {
            return conv(type, blocked);
        }
        int index = half(type) * 2 + (blocked ? 1 : 0);
        CudaSource built = epilogueKernels(epilogue).get(index);
        return built != null ? built : remember(epilogue, index, buildConv(type, blocked, epilogue));
    }

    /** {@link #biasActivation}'s sources without an epilogue, by {@link #half}. */
    private static final CudaSource[] BIAS_SOURCES = {buildBiasActivation(ElementType.FLOAT, null),
            buildBiasActivation(ElementType.FLOAT16, null)};
    /**
     * The epilogue kernels built so far, by the activation's expression (what the source depends on besides the element
     * type; its parameters are kernel arguments): conv f32, conv blocked f32, conv f16, conv blocked f16, bias f32, bias
     * f16. A launch finds its source here and builds no source text; the map holds one entry per fusable expression.
     */
    private static final ConcurrentHashMap<String, AtomicReferenceArray<CudaSource>> EPILOGUE_KERNELS =
            new ConcurrentHashMap<>();

    private static AtomicReferenceArray<CudaSource> epilogueKernels(FusableActivation epilogue) {
        AtomicReferenceArray<CudaSource> kernels = EPILOGUE_KERNELS.get(epilogue.expression());
        return kernels != null ? kernels : EPILOGUE_KERNELS.computeIfAbsent(epilogue.expression(),
                e -> new AtomicReferenceArray<>(6));
    }

    private static CudaSource remember(FusableActivation epilogue, int index, CudaSource built) {
        AtomicReferenceArray<CudaSource> kernels = epilogueKernels(epilogue);
        kernels.compareAndSet(index, null, built); // a race builds two equal sources; the first is kept
        return kernels.get(index);
    }

    private static CudaSource buildConv(ElementType type, boolean blocked, FusableActivation epilogue) {
        String t = half(type) == 1 ? "half" : "float";
        return source("conv_direct" + (blocked ? "_mb4" : "") + "_" + (half(type) == 1 ? "f16" : "f32") + suffix(epilogue),
                helpers(epilogue, t) + CONV, t, Map.of("MB", blocked ? String.valueOf(CHANNELS_PER_THREAD) : "1",
                        "ACTIVATION", epilogue.expression()));
    }

    /** {@link #BIAS_ACTIVATION} for {@code epilogue} (null: the bias alone). */
    static CudaSource biasActivation(ElementType type, FusableActivation epilogue) {
        if (epilogue == null) {
            return BIAS_SOURCES[half(type)];
        }
        int index = 4 + half(type);
        CudaSource built = epilogueKernels(epilogue).get(index);
        return built != null ? built : remember(epilogue, index, buildBiasActivation(type, epilogue));
    }

    private static CudaSource buildBiasActivation(ElementType type, FusableActivation epilogue) {
        String t = half(type) == 1 ? "half" : "float";
        Map<String, String> defines = new java.util.HashMap<>();
        if (epilogue != null) {
            defines.put("ACTIVATION", epilogue.expression());
        }
        return source("conv_bias" + suffix(epilogue) + "_" + (half(type) == 1 ? "f16" : "f32"),
                helpers(epilogue, t) + BIAS_ACTIVATION, t, defines);
    }

    /** The epilogue's helper functions, with {@code T} (this family's element type, a template parameter name there) undefined around them. */
    private static String helpers(FusableActivation epilogue, String t) {
        return epilogue == null ? "" : "#undef T\n" + epilogue.helpers() + "\n#define T " + t + "\n";
    }

    private static int half(ElementType type) {
        return switch (type) {
            case FLOAT -> 0;
            case FLOAT16 -> 1;
            default -> throw new IllegalArgumentException("the conv kernels are float32 and float16, not " + type);
        };
    }

    /** Conv; {@code blocked}: {@link #CHANNELS_PER_THREAD} output channels per thread. */
    static CudaSource conv(ElementType type, boolean blocked) {
        return CONV_SOURCES[half(type) * 2 + (blocked ? 1 : 0)];
    }

    static CudaSource convTranspose(ElementType type) {
        return CONV_TRANSPOSE_SOURCES[half(type)];
    }

    static CudaSource pool(ElementType type, boolean max) {
        return POOL_SOURCES[half(type) * 2 + (max ? 0 : 1)];
    }

    static CudaSource globalPool(ElementType type, boolean max) {
        return GLOBAL_POOL_SOURCES[half(type) * 2 + (max ? 0 : 1)];
    }
}
