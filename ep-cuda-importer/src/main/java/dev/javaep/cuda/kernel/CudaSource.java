package dev.javaep.cuda.kernel;

import dev.javaep.spi.ElementType;
import java.util.Map;
import java.util.TreeMap;

/**
 * One CUDA C kernel, as JavaCuda compiles it with NVRTC on first use: {@code entry} is the
 * {@code extern "C" __global__} function, {@code code} the whole translation unit ({@link #PRELUDE}, the
 * defines that specialise it, then the family's source). The code is the cache key: two nodes that need the
 * same specialisation share one module per device.
 *
 * <p>Kernels are written in CUDA C rather than generated PTX where the op is more than a line of
 * arithmetic (convolution, pooling, resampling, normalisation, reductions, index mapping): the C reads like
 * the Java reference kernel beside it, and NVRTC optimises it for the device at hand.
 */
public record CudaSource(String entry, String code) {

    /**
     * What every kernel may use: {@code half} as 16-bit storage with float conversions ({@code ld}/{@code st}
     * overloads read and write {@code float} and {@code half} element types as float, so one template serves
     * both), {@code Dims} (8 int64 values by value: shapes, strides), and a grid-stride loop macro. No
     * {@code #include}: NVRTC's headers vary between versions and the prelude needs none.
     */
    public static final String PRELUDE = """
            // javaep CUDA C prelude (dev.javaep.cuda.kernel.CudaSource)
            struct half { unsigned short bits; };
            struct Dims { long long d[8]; };
            struct Floats8 { float v[8]; };
            __device__ __forceinline__ float h2f(unsigned short h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h)); return f; }
            __device__ __forceinline__ unsigned short f2h(float f) { unsigned short h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f)); return h; }
            __device__ __forceinline__ float ld(const float* p, long long i) { return p[i]; }
            __device__ __forceinline__ float ld(const half* p, long long i) { return h2f(p[i].bits); }
            __device__ __forceinline__ void st(float* p, long long i, float v) { p[i] = v; }
            __device__ __forceinline__ void st(half* p, long long i, float v) { p[i].bits = f2h(v); }
            #define GRID_STRIDE(i, n) for (long long i = (long long) blockIdx.x * blockDim.x + threadIdx.x; i < (n); \\
                    i += (long long) blockDim.x * gridDim.x)
            """;

    /**
     * The C storage type of a float kernel's {@code type}, {@code float} or {@code half}: the families that compute
     * in float (normalisation, reductions, resampling, matrix products) are written for these two.
     */
    public static String floatStorage(ElementType type) {
        return switch (type) {
            case FLOAT -> "float";
            case FLOAT16 -> "half";
            default -> throw new IllegalArgumentException("no CUDA C float kernel stores " + type);
        };
    }

    /** The entry-name suffix of a float kernel's {@code type}: {@code f32}, or {@code f16} for half. */
    public static String floatSuffix(ElementType type) {
        return type == ElementType.FLOAT ? "f32" : "f16";
    }

    /** A kernel whose source is {@code body}, specialised by {@code defines} (e.g. {@code T -> half}). */
    public static CudaSource of(String entry, String body, Map<String, String> defines) {
        StringBuilder code = new StringBuilder(PRELUDE);
        new TreeMap<>(defines).forEach((name, value) -> code.append("#define ").append(name).append(' ').append(value)
                .append('\n'));
        code.append(body);
        return new CudaSource(entry, code.toString());
    }
}
