package dev.javaep.cuda.kernel.reduction;

import static dev.javaep.cuda.kernel.CudaSource.floatStorage;
import static dev.javaep.cuda.kernel.CudaSource.floatSuffix;

import dev.javaep.cuda.kernel.CudaSource;
import dev.javaep.cuda.kernel.ptx.LaunchShape;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ops.ReductionOps.Reduction;
import java.util.HashMap;
import java.util.Map;

/**
 * The CUDA C of the reduction family, one template per kernel, specialised by {@code #define}s: {@code T}
 * ({@code float} or {@code half}; arithmetic is always float), and for the Reduce ops {@code HOW} (how
 * contributions combine: 0 add, 1 multiply, 2 max, 3 min), {@code MAP(x)} (what an element contributes),
 * {@code FINISH(acc, n)} (what the combined value becomes) and {@code LSE} (LogSumExp's two passes). The Java
 * reference of each kernel is the JavaCpu kernel of the same op ({@code dev.javaep.cpu.kernel.reduction}).
 */
final class ReductionSources {
    private ReductionSources() {}

    /** Threads per block of every kernel here. */
    static final int BLOCK = 256;
    /** Columns (x) and row-splitting threads (y) of a block of the column kernels. */
    static final int COLUMNS_X = 32;
    static final int COLUMNS_Y = 8;
    /** Rows at least this long, when there are fewer than {@link #FEW_ROWS} of them, get a block each instead of a warp. */
    private static final long BLOCK_ROW_LENGTH = 1024;
    private static final long FEW_ROWS = 4096;

    /** How a reduction is laid over threads. */
    enum Form {
        /** [rows, R] with R contiguous: a warp per row, 8 rows per block. */
        ROWS_WARP,
        /** [rows, R] with long R and few rows: a block of 256 threads per row. */
        ROWS_BLOCK,
        /** [outer, R, inner], inner > 1: 32 neighbouring columns per block, 8 threads splitting R for each. */
        COLUMNS,
        /** Several reduced groups: a thread per output, walking the reduced groups with an odometer. */
        GENERAL
    }

    /** The rows form for {@code rows} rows of {@code length} contiguous elements: a block per row when long and few. */
    static Form rowsForm(long rows, long length) {
        return length >= BLOCK_ROW_LENGTH && rows < FEW_ROWS ? Form.ROWS_BLOCK : Form.ROWS_WARP;
    }

    /** The launch of a rows-form kernel over {@code rows} rows: a block per row, or a warp per row, 8 to a block. */
    static LaunchShape rowsLaunch(Form form, long rows) {
        int rowsPerBlock = form == Form.ROWS_BLOCK ? 1 : BLOCK / 32;
        long blocks = Math.min((rows + rowsPerBlock - 1) / rowsPerBlock, LaunchShape.MAX_LINEAR_BLOCKS);
        return new LaunchShape((int) blocks, 1, 1, BLOCK, 1, 1);
    }

    /** Float helpers every template here shares: infinities, NaN-propagating max/min, warp and block combines. */
    private static final String COMMON = """
            #define NEG_INF __int_as_float(0xff800000)
            #define POS_INF __int_as_float(0x7f800000)
            __device__ __forceinline__ float maxp(float a, float b) { return (a > b || a != a) ? a : b; }
            __device__ __forceinline__ float minp(float a, float b) { return (a < b || a != a) ? a : b; }
            __device__ __forceinline__ bool infinite(float v) { return v == POS_INF || v == NEG_INF; }
            template <int H> __device__ __forceinline__ float identity() {
                return H == 0 ? 0.0f : H == 1 ? 1.0f : H == 2 ? NEG_INF : POS_INF;
            }
            template <int H> __device__ __forceinline__ float comb(float a, float b) {
                return H == 0 ? a + b : H == 1 ? a * b : H == 2 ? maxp(a, b) : minp(a, b);
            }
            template <int H> __device__ __forceinline__ float warp_all(float v) {
                for (int o = 16; o > 0; o >>= 1) {
                    v = comb<H>(v, __shfl_xor_sync(0xffffffffu, v, o));
                }
                return v;
            }
            // The threads of one row (TPR of them: a warp, or the whole block) combine v; all of them get the result.
            // With TPR == blockDim.x every thread of the block calls this the same number of times.
            template <int H> __device__ __forceinline__ float row_all(float v, float* shared) {
                v = warp_all<H>(v);
                if (TPR == 32) {
                    return v;
                }
                int warp = threadIdx.x >> 5;
                int lane = threadIdx.x & 31;
                __syncthreads();
                if (lane == 0) {
                    shared[warp] = v;
                }
                __syncthreads();
                v = lane < (int) (blockDim.x >> 5) ? shared[lane] : identity<H>();
                return warp_all<H>(v);
            }
            """;

    /**
     * The opening of a rows-form kernel {@code NAME(y, x, rows, <length>)}: TPR threads per row, blockDim.x / TPR rows
     * per block, grid-striding over rows; inside the loop, {@code row}, {@code live} (a real row), {@code lane} and
     * {@code xr} (the row's first element) are set. Reduce and Softmax continue it with their passes over the row.
     */
    private static String rowsKernelHead(String length) {
        return """
                extern "C" __global__ void NAME(T* y, const T* x, long long rows, long long %1$s) {
                    __shared__ float shared[32];
                    const int rowsPerBlock = blockDim.x / TPR;
                    const int lane = threadIdx.x %% TPR;
                    for (long long first = (long long) blockIdx.x * rowsPerBlock; first < rows;
                            first += (long long) gridDim.x * rowsPerBlock) {
                        long long row = first + threadIdx.x / TPR;
                        bool live = row < rows;
                        const T* xr = x + (live ? row : 0) * %1$s;
                """.formatted(length);
    }

    /**
     * Reduce ops. Each output is {@code FINISH(combine over its elements of MAP(x)), count)}; LogSumExp first finds
     * the maximum m, then {@code log(sum(exp(x - m))) + m} (m taken as 0 when infinite, so all -inf gives -inf).
     */
    private static final String REDUCE = """
            #if FORM == 0 || FORM == 1
            // [rows, R], R contiguous: TPR threads per row, blockDim.x / TPR rows per block, grid-striding over rows.
            """ + rowsKernelHead("R") + """
            #if LSE
                    float m = NEG_INF;
                    if (live) for (long long r = lane; r < R; r += TPR) m = maxp(m, ld(xr, r));
                    m = row_all<2>(m, shared);
                    float shift = infinite(m) ? 0.0f : m;
                    float acc = 0.0f;
                    if (live) for (long long r = lane; r < R; r += TPR) acc += expf(ld(xr, r) - shift);
                    acc = row_all<0>(acc, shared);
                    if (live && lane == 0) st(y, row, logf(acc) + shift);
            #else
                    float acc = identity<HOW>();
                    if (live) for (long long r = lane; r < R; r += TPR) acc = comb<HOW>(acc, MAP(ld(xr, r)));
                    acc = row_all<HOW>(acc, shared);
                    if (live && lane == 0) st(y, row, FINISH(acc, R));
            #endif
                }
            }
            #elif FORM == 2
            // [outer, R, inner]: threadIdx.x picks one of 32 neighbouring columns (coalesced), threadIdx.y splits R.
            extern "C" __global__ void NAME(T* y, const T* x, long long outer, long long R, long long inner) {
                __shared__ float part[CY][CX + 1];
                const int tx = threadIdx.x;
                const int ty = threadIdx.y;
                long long i = (long long) blockIdx.x * CX + tx;
                for (long long o = blockIdx.y; o < outer; o += gridDim.y) {
                    bool live = i < inner;
                    const T* xo = x + o * R * inner + (live ? i : 0);
            #if LSE
                    float m = NEG_INF;
                    if (live) for (long long r = ty; r < R; r += CY) m = maxp(m, ld(xo, r * inner));
                    part[ty][tx] = m;
                    __syncthreads();
                    m = NEG_INF;
                    for (int k = 0; k < CY; k++) m = maxp(m, part[k][tx]);
                    __syncthreads();
                    float shift = infinite(m) ? 0.0f : m;
                    float acc = 0.0f;
                    if (live) for (long long r = ty; r < R; r += CY) acc += expf(ld(xo, r * inner) - shift);
                    part[ty][tx] = acc;
                    __syncthreads();
                    if (ty == 0 && live) {
                        float s = 0.0f;
                        for (int k = 0; k < CY; k++) s += part[k][tx];
                        st(y, o * inner + i, logf(s) + shift);
                    }
                    __syncthreads();
            #else
                    float acc = identity<HOW>();
                    if (live) for (long long r = ty; r < R; r += CY) acc = comb<HOW>(acc, MAP(ld(xo, r * inner)));
                    part[ty][tx] = acc;
                    __syncthreads();
                    if (ty == 0 && live) {
                        float s = identity<HOW>();
                        for (int k = 0; k < CY; k++) s = comb<HOW>(s, part[k][tx]);
                        st(y, o * inner + i, FINISH(s, R));
                    }
                    __syncthreads();
            #endif
                }
            }
            #else
            // Several reduced groups: output o's kept coordinates give its first element; an odometer over the
            // reduced groups (sizes rs, strides rt, innermost last) walks its elements.
            __device__ __forceinline__ long long first_element(long long o, int kept, const Dims& ks, const Dims& kt) {
                long long at = 0;
                for (int d = kept - 1; d >= 0; d--) {
                    at += (o % ks.d[d]) * kt.d[d];
                    o /= ks.d[d];
                }
                return at;
            }
            template <int H, int PASS> __device__ float walk(const T* x, long long at, long long R, int reduced,
                                                            const Dims& rs, const Dims& rt, float shift) {
                long long counter[8] = {0, 0, 0, 0, 0, 0, 0, 0};
                float acc = identity<H>();
                for (long long r = 0; r < R; r++) {
                    float v = ld(x, at);
                    acc = comb<H>(acc, PASS == 0 ? v : PASS == 1 ? MAP(v) : expf(v - shift));
                    for (int d = reduced - 1; d >= 0; d--) {
                        at += rt.d[d];
                        if (++counter[d] < rs.d[d]) break;
                        counter[d] = 0;
                        at -= rt.d[d] * rs.d[d];
                    }
                }
                return acc;
            }
            extern "C" __global__ void NAME(T* y, const T* x, long long outputs, long long R,
                                            int kept, Dims ks, Dims kt, int reduced, Dims rs, Dims rt) {
                GRID_STRIDE(o, outputs) {
                    long long at = first_element(o, kept, ks, kt);
            #if LSE
                    float m = walk<2, 0>(x, at, R, reduced, rs, rt, 0.0f);
                    float shift = infinite(m) ? 0.0f : m;
                    st(y, o, logf(walk<0, 2>(x, at, R, reduced, rs, rt, shift)) + shift);
            #else
                    float acc = walk<HOW, 1>(x, at, R, reduced, rs, rt, 0.0f);
                    st(y, o, FINISH(acc, R));
            #endif
                }
            }
            #endif
            """;

    /**
     * ArgMax/ArgMin over [outer, R, inner]: a thread per output walks its column (threads of a warp read neighbouring
     * columns). Strict comparison keeps the first extreme; SELECT_LAST makes it the last.
     */
    private static final String ARG_REDUCE = """
            extern "C" __global__ void NAME(long long* y, const T* x, long long outer, long long R, long long inner) {
                GRID_STRIDE(o, outer * inner) {
                    const T* xo = x + (o / inner) * R * inner + (o % inner);
                    float best = ld(xo, 0);
                    long long index = 0;
                    for (long long r = 1; r < R; r++) {
                        float v = ld(xo, r * inner);
            #if SELECT_LAST
                        if (MAX ? v >= best : v <= best) { best = v; index = r; }
            #else
                        if (MAX ? v > best : v < best) { best = v; index = r; }
            #endif
                    }
                    y[o] = index;
                }
            }
            """;

    /**
     * Softmax and LogSoftmax (LOG) over [outer, length, inner]. Rows (inner == 1): TPR threads per row, three passes
     * (max, sum of exp(x - max), write). Columns: a thread per (outer, inner) pair walks its strided slice.
     */
    private static final String SOFTMAX = """
            #if FORM == 0 || FORM == 1
            """ + rowsKernelHead("length") + """
                    T* yr = y + (live ? row : 0) * length;
                    float m = NEG_INF;
                    if (live) for (long long i = lane; i < length; i += TPR) m = maxp(m, ld(xr, i));
                    m = row_all<2>(m, shared);
                    float s = 0.0f;
                    if (live) for (long long i = lane; i < length; i += TPR) s += expf(ld(xr, i) - m);
                    s = row_all<0>(s, shared);
            #if LOG
                    // (x - m) - log(s), not x - (m + log(s)): x - m is exact where x and m are large
                    float logs = logf(s);
                    if (live) for (long long i = lane; i < length; i += TPR) st(yr, i, (ld(xr, i) - m) - logs);
            #else
                    float inverse = 1.0f / s;
                    if (live) for (long long i = lane; i < length; i += TPR) st(yr, i, expf(ld(xr, i) - m) * inverse);
            #endif
                }
            }
            #else
            extern "C" __global__ void NAME(T* y, const T* x, long long outer, long long length, long long inner) {
                GRID_STRIDE(o, outer * inner) {
                    long long base = (o / inner) * length * inner + (o % inner);
                    float m = NEG_INF;
                    for (long long k = 0; k < length; k++) m = maxp(m, ld(x, base + k * inner));
                    float s = 0.0f;
                    for (long long k = 0; k < length; k++) s += expf(ld(x, base + k * inner) - m);
            #if LOG
                    float logs = logf(s);
                    for (long long k = 0; k < length; k++) st(y, base + k * inner, (ld(x, base + k * inner) - m) - logs);
            #else
                    float inverse = 1.0f / s;
                    for (long long k = 0; k < length; k++) st(y, base + k * inner, expf(ld(x, base + k * inner) - m) * inverse);
            #endif
                }
            }
            #endif
            """;

    private static Map<String, String> formDefines(Form form, ElementType type) {
        Map<String, String> defines = new HashMap<>();
        defines.put("T", floatStorage(type));
        defines.put("FORM", String.valueOf(form.ordinal()));
        defines.put("TPR", form == Form.ROWS_BLOCK ? String.valueOf(BLOCK) : "32");
        defines.put("CX", String.valueOf(COLUMNS_X));
        defines.put("CY", String.valueOf(COLUMNS_Y));
        return defines;
    }

    /** The kernel of {@code reduction} in {@code form} on {@code type}. */
    static CudaSource reduce(Reduction reduction, Form form, ElementType type) {
        String entry = "reduce_" + reduction.name().toLowerCase() + "_" + form.name().toLowerCase() + "_" + floatSuffix(type);
        Map<String, String> defines = formDefines(form, type);
        defines.put("NAME", entry);
        defines.put("LSE", reduction == Reduction.LOG_SUM_EXP ? "1" : "0");
        defines.put("HOW", switch (reduction) {
            case PROD -> "1";
            case MAX -> "2";
            case MIN -> "3";
            default -> "0";
        });
        defines.put("MAP(x)", switch (reduction) {
            case L1 -> "fabsf(x)";
            case L2, SUM_SQUARE -> "((x) * (x))";
            default -> "(x)";
        });
        defines.put("FINISH(a, n)", switch (reduction) {
            case MEAN -> "((a) / (float) (n))";
            case L2 -> "sqrtf(a)";
            case LOG_SUM -> "logf(a)";
            default -> "(a)";
        });
        return CudaSource.of(entry, COMMON + REDUCE, defines);
    }

    /** ArgMax ({@code max}) or ArgMin on {@code type}. */
    static CudaSource argReduce(boolean max, boolean selectLast, ElementType type) {
        String entry = (max ? "argmax" : "argmin") + (selectLast ? "_last_" : "_") + floatSuffix(type);
        Map<String, String> defines = new HashMap<>();
        defines.put("T", floatStorage(type));
        defines.put("NAME", entry);
        defines.put("MAX", max ? "1" : "0");
        defines.put("SELECT_LAST", selectLast ? "1" : "0");
        return CudaSource.of(entry, ARG_REDUCE, defines);
    }

    /** Softmax or LogSoftmax ({@code log}) in {@code form} (a rows form or {@link Form#COLUMNS}) on {@code type}. */
    static CudaSource softmax(boolean log, Form form, ElementType type) {
        String entry = (log ? "log_softmax_" : "softmax_") + form.name().toLowerCase() + "_" + floatSuffix(type);
        Map<String, String> defines = formDefines(form, type);
        defines.put("NAME", entry);
        defines.put("LOG", log ? "1" : "0");
        return CudaSource.of(entry, COMMON + SOFTMAX, defines);
    }
}
