package dev.javaep.cuda.kernel.elementwise;

import dev.javaep.cuda.kernel.CudaSource;
import dev.javaep.spi.ElementType;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * JavaCuda's one CUDA C template for elementwise ops: up to {@link #MAX_INPUTS} inputs of any element types, each
 * loaded into its working type (float for float16 and float32, double, {@code long long} for the integers and
 * bool, {@code unsigned long long} for uint64), a result expression over {@code x0 .. x7} and {@code params.v[]},
 * and a store into the output type. NVRTC specialises it per (op, types, form) with {@code #define}s:
 * {@code LOADS} declares the inputs, {@code RESULT} is the expression, {@code STORE} the output's store.
 *
 * <p>Two forms: {@link Form#CONTIGUOUS}, where every input is either the output's shape (step 1) or one element
 * (step 0), so an element's offset is {@code i * step}; and {@link Form#BROADCAST}, which divides the element
 * index through the (merged) output shape, rank at most 8, and takes per-input strides that are 0 along
 * stretched dimensions. The Java reference of each expression is JavaCpu's lane loop of the same op
 * ({@code dev.javaep.cpu.kernel.elementwise.UnaryMath}, {@code BinaryMath}, {@code CastKernel}); float ops compute
 * in float32 here (CUDA's {@code expf}, {@code erff}, ...), so results agree to a few units in the last place.
 */
final class ElementwiseSource {
    /** Inputs one kernel takes: the size of the {@code Ptrs} struct and of the per-input rows of {@code Strides}. */
    static final int MAX_INPUTS = 8;
    /** Dimensions of the broadcast form after merging. */
    static final int MAX_RANK = 8;

    enum Form { CONTIGUOUS, BROADCAST }

    private ElementwiseSource() {}

    static final String TEMPLATE = """
            // javaep elementwise template (dev.javaep.cuda.kernel.elementwise.ElementwiseSource)
            struct Ptrs { const void* p[8]; };
            struct Strides { long long s[64]; };
            typedef long long i64;
            typedef unsigned long long u64;

            // Loads: an element as its working type.
            __device__ __forceinline__ float ld_float(const void* p, i64 i) { return ((const float*) p)[i]; }
            __device__ __forceinline__ float ld_half(const void* p, i64 i) { return h2f(((const unsigned short*) p)[i]); }
            __device__ __forceinline__ double ld_double(const void* p, i64 i) { return ((const double*) p)[i]; }
            __device__ __forceinline__ i64 ld_int8(const void* p, i64 i) { return ((const signed char*) p)[i]; }
            __device__ __forceinline__ i64 ld_uint8(const void* p, i64 i) { return ((const unsigned char*) p)[i]; }
            __device__ __forceinline__ i64 ld_int16(const void* p, i64 i) { return ((const short*) p)[i]; }
            __device__ __forceinline__ i64 ld_uint16(const void* p, i64 i) { return ((const unsigned short*) p)[i]; }
            __device__ __forceinline__ i64 ld_int32(const void* p, i64 i) { return ((const int*) p)[i]; }
            __device__ __forceinline__ i64 ld_uint32(const void* p, i64 i) { return ((const unsigned int*) p)[i]; }
            __device__ __forceinline__ i64 ld_int64(const void* p, i64 i) { return ((const i64*) p)[i]; }
            __device__ __forceinline__ u64 ld_uint64(const void* p, i64 i) { return ((const u64*) p)[i]; }
            __device__ __forceinline__ i64 ld_bool(const void* p, i64 i) { return ((const unsigned char*) p)[i] != 0; }
            // Raw bits, for ops that move elements without reading them (Where).
            __device__ __forceinline__ unsigned char ld_bits8(const void* p, i64 i) { return ((const unsigned char*) p)[i]; }
            __device__ __forceinline__ unsigned short ld_bits16(const void* p, i64 i) { return ((const unsigned short*) p)[i]; }
            __device__ __forceinline__ unsigned int ld_bits32(const void* p, i64 i) { return ((const unsigned int*) p)[i]; }
            __device__ __forceinline__ u64 ld_bits64(const void* p, i64 i) { return ((const u64*) p)[i]; }

            // Stores: narrowing as C does (integers keep their low bits).
            __device__ __forceinline__ void st_float(void* p, i64 i, float v) { ((float*) p)[i] = v; }
            __device__ __forceinline__ void st_half(void* p, i64 i, float v) { ((unsigned short*) p)[i] = f2h(v); }
            __device__ __forceinline__ void st_double(void* p, i64 i, double v) { ((double*) p)[i] = v; }
            __device__ __forceinline__ void st_int8(void* p, i64 i, i64 v) { ((signed char*) p)[i] = (signed char) v; }
            __device__ __forceinline__ void st_uint8(void* p, i64 i, i64 v) { ((unsigned char*) p)[i] = (unsigned char) v; }
            __device__ __forceinline__ void st_int16(void* p, i64 i, i64 v) { ((short*) p)[i] = (short) v; }
            __device__ __forceinline__ void st_uint16(void* p, i64 i, i64 v) { ((unsigned short*) p)[i] = (unsigned short) v; }
            __device__ __forceinline__ void st_int32(void* p, i64 i, i64 v) { ((int*) p)[i] = (int) v; }
            __device__ __forceinline__ void st_uint32(void* p, i64 i, i64 v) { ((unsigned int*) p)[i] = (unsigned int) v; }
            __device__ __forceinline__ void st_int64(void* p, i64 i, i64 v) { ((i64*) p)[i] = v; }
            __device__ __forceinline__ void st_uint64(void* p, i64 i, u64 v) { ((u64*) p)[i] = v; }
            __device__ __forceinline__ void st_bool(void* p, i64 i, i64 v) { ((unsigned char*) p)[i] = v != 0; }
            __device__ __forceinline__ void st_bits8(void* p, i64 i, unsigned char v) { ((unsigned char*) p)[i] = v; }
            __device__ __forceinline__ void st_bits16(void* p, i64 i, unsigned short v) { ((unsigned short*) p)[i] = v; }
            __device__ __forceinline__ void st_bits32(void* p, i64 i, unsigned int v) { ((unsigned int*) p)[i] = v; }
            __device__ __forceinline__ void st_bits64(void* p, i64 i, u64 v) { ((u64*) p)[i] = v; }

            // The ops' helpers (JavaCpu's UnaryMath/BinaryMath are their reference).
            __device__ __forceinline__ float sigmoid(float x) {
                if (x >= 0.0f) { return 1.0f / (1.0f + expf(-x)); }
                float e = expf(x);
                return e / (1.0f + e);
            }
            __device__ __forceinline__ float softplus(float x) { return x > 0.0f ? x + log1pf(expf(-x)) : log1pf(expf(x)); }
            __device__ __forceinline__ float sign(float x) { return x > 0.0f ? 1.0f : (x < 0.0f ? -1.0f : x); }
            __device__ __forceinline__ i64 sign(i64 x) { return (x > 0) - (x < 0); }
            __device__ __forceinline__ u64 sign(u64 x) { return x != 0; }
            __device__ __forceinline__ i64 iabs(i64 x) { return x < 0 ? -x : x; }
            __device__ __forceinline__ u64 iabs(u64 x) { return x; }
            // Min/Max: NaN wins, as in Java's Math.min/max and ONNX Runtime's CPU kernels.
            __device__ __forceinline__ float vmin(float a, float b) { return a != a ? a : (b != b ? b : fminf(a, b)); }
            __device__ __forceinline__ float vmax(float a, float b) { return a != a ? a : (b != b ? b : fmaxf(a, b)); }
            __device__ __forceinline__ double vmin(double a, double b) { return a != a ? a : (b != b ? b : fmin(a, b)); }
            __device__ __forceinline__ double vmax(double a, double b) { return a != a ? a : (b != b ? b : fmax(a, b)); }
            template <typename T> __device__ __forceinline__ T vmin(T a, T b) { return a < b ? a : b; }
            template <typename T> __device__ __forceinline__ T vmax(T a, T b) { return a > b ? a : b; }
            // Clip: min then max, so a min above max gives max; NaN compares false and stays.
            template <typename T> __device__ __forceinline__ T clip_lo(T x, T lo) { return x < lo ? lo : x; }
            template <typename T> __device__ __forceinline__ T clip_hi(T x, T hi) { return x > hi ? hi : x; }
            // Mod: Python's % (the divisor's sign) and C's fmod (the dividend's).
            __device__ __forceinline__ i64 pymod(i64 a, i64 b) { i64 r = a % b; return r != 0 && ((r ^ b) < 0) ? r + b : r; }
            __device__ __forceinline__ u64 pymod(u64 a, u64 b) { return a % b; }
            // Float to uint64 as JavaCpu converts: through int64 below 2^63 (negative values keep their two's complement bits).
            __device__ __forceinline__ u64 to_u64(double x) { return x >= 9223372036854775808.0 ? (u64) x : (u64) (i64) x; }

            #if BROADCAST
            extern "C" __global__ void ENTRY(void* out, Ptrs in, i64 n, int rank, Dims shape, Strides strides, Floats8 params) {
                GRID_STRIDE(i, n) {
                    i64 o[NIN];
                    #pragma unroll
                    for (int k = 0; k < NIN; k++) { o[k] = 0; }
                    i64 rest = i;
                    for (int d = rank - 1; d >= 0; d--) {
                        i64 c = rest % shape.d[d];
                        rest /= shape.d[d];
                        #pragma unroll
                        for (int k = 0; k < NIN; k++) { o[k] += c * strides.s[k * 8 + d]; }
                    }
                    LOADS
                    STORE(out, i, RESULT);
                }
            }
            #else
            extern "C" __global__ void ENTRY(void* out, Ptrs in, i64 n, Dims steps, Floats8 params) {
                GRID_STRIDE(i, n) {
                    i64 o[NIN];
                    #pragma unroll
                    for (int k = 0; k < NIN; k++) { o[k] = i * steps.d[k]; }
                    LOADS
                    STORE(out, i, RESULT);
                }
            }
            #endif
            """;

    /**
     * The template's C text before its kernels: the typedefs, loads, stores and the ops' helpers ({@code sigmoid},
     * {@code clip_lo}, ...) that {@link ElementwiseKernels#floatExpression}'s expressions call, for a kernel of another
     * family that evaluates one of them in its epilogue ({@link ElementwiseKernels#fusableActivation}).
     */
    static String helpers() {
        return TEMPLATE.substring(0, TEMPLATE.indexOf("#if BROADCAST"));
    }

    /**
     * One specialisation of the template.
     *
     * @param name    names the entry ({@code ew_<name>_contig} / {@code _bcast}); letters, digits, underscores
     * @param loaders the load function of each input in order ({@link #load}, or {@link #bits} for moves)
     * @param result  the C expression of the output element over {@code x0 ..} and {@code params.v[0..7]}
     * @param store   the output's store function ({@link #store})
     */
    record Spec(String name, List<String> loaders, String result, String store) {
        Spec {
            loaders = List.copyOf(loaders);
            if (loaders.isEmpty() || loaders.size() > MAX_INPUTS) {
                throw new IllegalArgumentException(name + ": " + loaders.size() + " inputs; the template takes 1 to " + MAX_INPUTS);
            }
            if (!name.matches("[a-z0-9_]+")) {
                throw new IllegalArgumentException("kernel name " + name);
            }
        }

        CudaSource source(Form form) {
            StringBuilder loads = new StringBuilder();
            for (int k = 0; k < loaders.size(); k++) {
                loads.append("auto x").append(k).append(" = ").append(loaders.get(k)).append("(in.p[").append(k)
                        .append("], o[").append(k).append("]); ");
            }
            String entry = "ew_" + name + (form == Form.BROADCAST ? "_bcast" : "_contig");
            return CudaSource.of(entry, TEMPLATE, Map.of("ENTRY", entry, "NIN", Integer.toString(loaders.size()),
                    "BROADCAST", form == Form.BROADCAST ? "1" : "0", "LOADS", loads.toString().strip(), "RESULT", result,
                    "STORE", store));
        }
    }

    /** The template's name for an element type: the suffix of its load and store functions. */
    static String typeName(ElementType type) {
        return switch (type) {
            case FLOAT -> "float";
            case FLOAT16 -> "half";
            case DOUBLE -> "double";
            case INT8, UINT8, INT16, UINT16, INT32, UINT32, INT64, UINT64, BOOL -> type.name().toLowerCase(Locale.ROOT);
            default -> throw new IllegalArgumentException("the elementwise template has no " + type);
        };
    }

    /** The function that loads an element of {@code type} as its working type. */
    static String load(ElementType type) {
        return "ld_" + typeName(type);
    }

    static String store(ElementType type) {
        return "st_" + typeName(type);
    }

    /** The function that loads an element's bits (for moving it unread). */
    static String bits(ElementType type) {
        return switch (type.byteSize()) {
            case 1, 2, 4, 8 -> "ld_bits" + type.byteSize() * 8;
            default -> throw new IllegalArgumentException("the elementwise template cannot move " + type);
        };
    }

    static String storeBits(ElementType type) {
        return "st" + bits(type).substring(2);
    }
}
