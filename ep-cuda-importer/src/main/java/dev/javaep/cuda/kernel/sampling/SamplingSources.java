package dev.javaep.cuda.kernel.sampling;

import static dev.javaep.cuda.kernel.CudaSource.floatStorage;
import static dev.javaep.cuda.kernel.CudaSource.floatSuffix;

import dev.javaep.cuda.kernel.CudaSource;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ops.SamplingOps;
import dev.javaep.spi.ops.SamplingOps.GridSampleAttributes;
import dev.javaep.spi.ops.SamplingOps.ResizeAttributes;
import java.util.Map;

/**
 * The CUDA C of Resize/Upsample and GridSample: one thread per output element, the attributes compiled in as
 * defines (one module per combination in use). The device functions mirror {@link SamplingOps}'s
 * (originalCoordinate, nearestIndex, resizeTaps, cubicCoefficients, unnormalize, reflect, gridTaps), and the
 * kernels JavaCpu's {@code ResizeKernel} and {@code GridSampleKernel}, summing the taps in the same order.
 * Coordinates use {@code __fmul_rn} and friends where a product meets a sum, so the compiler's fused multiply-add
 * cannot move a coordinate across a rounding boundary the Java reference does not cross.
 */
final class SamplingSources {
    private SamplingSources() {}

    private static final String CUBIC = """
            // Keys' weights of the taps floor-1..floor+2 of a coordinate t past floor (SamplingOps.cubicCoefficients)
            __device__ void cubic_coefficients(float t, float a, float* c) {
                float t1 = t + 1.f, u = 1.f - t, u1 = u + 1.f;
                c[0] = ((a * t1 - 5.f * a) * t1 + 8.f * a) * t1 - 4.f * a;
                c[1] = ((a + 2.f) * t - (a + 3.f)) * t * t + 1.f;
                c[2] = ((a + 2.f) * u - (a + 3.f)) * u * u + 1.f;
                c[3] = ((a * u1 - 5.f * a) * u1 + 8.f * a) * u1 - 4.f * a;
            }
            """;

    /**
     * Defines: MODE (0 nearest, 1 linear, 2 cubic), TRANSFORM (the CoordinateTransform ordinal), NEAREST (the
     * NearestRounding ordinal), ANTIALIAS, EXCLUDE (0/1), EXTRAPOLATE (tf_crop_and_resize).
     */
    private static final String RESIZE = CUBIC + """
            __device__ float original_coordinate(long long y, float scale, long long out_len, long long in_len, float rs,
                    float re) {
                float yf = (float) y;
            #if TRANSFORM == 0   // half_pixel
                return (yf + 0.5f) / scale - 0.5f;
            #elif TRANSFORM == 1 // half_pixel_symmetric, in double as ORT
                float output_width = scale * (float) in_len;
                float adjustment = (float) out_len / output_width;
                float center = (float) in_len / 2.f;
                float offset = center * (1.f - adjustment);
                return (float) ((double) offset + ((double) yf + 0.5) / (double) scale - 0.5);
            #elif TRANSFORM == 2 // pytorch_half_pixel
                return out_len > 1 ? (yf + 0.5f) / scale - 0.5f : 0.f;
            #elif TRANSFORM == 3 // align_corners
                return out_len == 1 ? 0.f : __fmul_rn(yf, (float) (in_len - 1)) / (float) (out_len - 1);
            #elif TRANSFORM == 4 // asymmetric
                return yf / scale;
            #elif TRANSFORM == 5 // tf_half_pixel_for_nn
                return (yf + 0.5f) / scale;
            #else                // tf_crop_and_resize
                float in1 = (float) (in_len - 1);
                return out_len > 1
                        ? __fadd_rn(__fmul_rn(rs, in1), __fmul_rn(__fmul_rn(yf, re - rs), in1) / (float) (out_len - 1))
                        : (float) (0.5 * (double) (rs + re) * (double) (in_len - 1));
            #endif
            }

            // One resized axis of one output element: its taps are left + start + t for t < count, clamped into the
            // axis; weight(t) gives each one's weight (SamplingOps.resizeTaps).
            struct Axis { long long left; long long length; long long stride; float ratio; float scale; float norm;
                          int start; int count; int antialias; };

            __device__ float raw_weight(const Axis& a, int t, float cubic_a) {
            #if MODE == 0
                return 1.f;
            #else
                if (a.antialias) {
                    float distance = a.scale * ((float) (a.start + t) - a.ratio);
            #if MODE == 1
                    return fmaxf(0.f, 1.f - fabsf(distance));
            #else
                    float d = fabsf(distance);
                    return d <= 1.f ? ((cubic_a + 2.f) * d - (cubic_a + 3.f)) * d * d + 1.f
                         : d < 2.f ? ((cubic_a * d - 5.f * cubic_a) * d + 8.f * cubic_a) * d - 4.f * cubic_a : 0.f;
            #endif
                }
            #if MODE == 1
                return t == 0 ? 1.f - a.ratio : a.ratio;
            #else
                float c[4];
                cubic_coefficients(a.ratio == 1.f ? 0.f : a.ratio, cubic_a, c);
                return c[t];
            #endif
            #endif
            }

            __device__ float weight(const Axis& a, int t, float cubic_a) {
            #if EXCLUDE && MODE != 0
                long long i = a.left + a.start + t;
                if (i < 0 || i >= a.length) return 0.f;
            #endif
                return raw_weight(a, t, cubic_a) / a.norm;
            }

            __device__ long long nearest_index(float x, float scale) {
                float f = floorf(x);
                long long base = (long long) f;
            #if NEAREST != 2
                float fraction = x - f;
            #endif
            #if NEAREST == 0
                return fraction <= 0.5f ? base : base + 1;
            #elif NEAREST == 1
                return fraction < 0.5f ? base : base + 1;
            #elif NEAREST == 2
                return base;
            #elif NEAREST == 3
                return fraction == 0.f ? base : base + 1;
            #else
                return scale < 1.f ? (fraction == 0.f ? base : base + 1) : base;
            #endif
            }

            extern "C" __global__ void NAME(T* y, const T* x, Dims in_shape, Dims out_shape, Floats8 scales,
                    Floats8 roi_start, Floats8 roi_end, int rank, int resized_mask, long long total, float cubic_a,
                    float extrapolation) {
                GRID_STRIDE(o, total) {
                    Axis axes[8];
                    int n = 0;
                    long long fixed = 0, rest = o, stride = 1;
                    bool outside = false;
                    for (int d = rank - 1; d >= 0; d--) {
                        long long coordinate = rest % out_shape.d[d];
                        rest /= out_shape.d[d];
                        long long length = in_shape.d[d];
                        if (!((resized_mask >> d) & 1)) {
                            fixed += coordinate * stride;
                        } else {
                            Axis a;
                            float scale = scales.v[d];
                            float xo = original_coordinate(coordinate, scale, out_shape.d[d], length, roi_start.v[d],
                                    roi_end.v[d]);
                            outside |= xo < 0.f || xo > (float) (length - 1);
                            a.length = length;
                            a.stride = stride;
                            a.scale = scale;
                            a.antialias = 0;
            #if MODE == 0
                            a.left = nearest_index(xo, scale);
                            a.ratio = 0.f;
                            a.start = 0;
                            a.count = 1;
            #else
                            float f = floorf(xo);
                            a.left = (long long) f;
                            a.ratio = xo - f;
                            if (a.ratio == 0.f) { a.left -= 1; a.ratio = 1.f; }
            #if ANTIALIAS
                            a.antialias = scale < 1.f;
            #endif
                            if (a.antialias) {
                                // the filter's half-width is 1 for linear (MODE 1), 2 for cubic (MODE 2)
                                a.start = (int) floorf(-(float) MODE / scale) + 1;
                                a.count = 2 - 2 * a.start;
                            } else if (MODE == 1) {
                                a.start = 0;
                                a.count = 2;
                            } else {
                                a.start = a.ratio == 1.f ? 1 : 0;
                                a.start -= 1;
                                a.count = 4;
                            }
            #endif
                            a.norm = 1.f;
            #if MODE != 0
                            if (EXCLUDE || a.antialias) {
                                float sum = 0.f;
                                for (int t = 0; t < a.count; t++) sum += weight(a, t, cubic_a);
                                if (sum != 0.f) a.norm = sum;
                            }
            #endif
                            axes[n++] = a;
                        }
                        stride *= length;
                    }
            #if EXTRAPOLATE
                    if (outside) { st(y, o, extrapolation); continue; }
            #endif
                    // the odometer runs over the axes outermost first, innermost fastest, as the Java kernel
                    int tap[8];
                    for (int k = 0; k < n; k++) tap[k] = 0;
                    float sum = 0.f;
                    while (true) {
                        float w = 1.f;
                        long long offset = fixed;
                        for (int k = n - 1; k >= 0; k--) {
                            const Axis& a = axes[k];
                            w *= weight(a, tap[k], cubic_a);
                            long long i = a.left + a.start + tap[k];
                            i = i < 0 ? 0 : i >= a.length ? a.length - 1 : i;
                            offset += i * a.stride;
                        }
                        sum += w * ld(x, offset);
                        int k = 0;
                        while (k < n && ++tap[k] == axes[k].count) { tap[k] = 0; k++; }
                        if (k == n) break;
                    }
                    st(y, o, sum);
                }
            }
            """;

    /** Defines: MODE (0 linear, 1 nearest, 2 cubic), PADDING (0 zeros, 1 border, 2 reflection), ALIGN (0/1). */
    private static final String GRID_SAMPLE = CUBIC + """
            __device__ float unnormalize(float n, long long length) {
            #if ALIGN
                return (n + 1.f) / 2.f * (float) (length - 1);
            #else
                return __fsub_rn(__fmul_rn(n + 1.f, (float) length), 1.f) / 2.f;
            #endif
            }

            __device__ float reflect(float x, float lo, float hi) {
                float range = hi - lo;
                if (range <= 0.f) return lo;
                if (x < lo) {
                    float dx = lo - x;
                    int n = (int) (dx / range);
                    float r = __fsub_rn(dx, __fmul_rn((float) n, range));
                    return n % 2 == 0 ? lo + r : hi - r;
                }
                if (x > hi) {
                    float dx = x - hi;
                    int n = (int) (dx / range);
                    float r = __fsub_rn(dx, __fmul_rn((float) n, range));
                    return n % 2 == 0 ? hi - r : lo + r;
                }
                return x;
            }

            // A tap index brought inside by the padding; -1 (reads 0) for zeros padding (SamplingOps.padIndex)
            __device__ long long pad_index(long long i, long long length, float lo, float hi) {
                if (i >= 0 && i < length) return i;
            #if PADDING == 0
                return -1;
            #elif PADDING == 1
                return i < 0 ? 0 : length - 1;
            #else
                long long r = (long long) reflect((float) i, lo, hi);
                return r < 0 ? 0 : r >= length ? length - 1 : r;
            #endif
            }

            #if MODE == 2
            #define TAPS 4
            #elif MODE == 0
            #define TAPS 2
            #else
            #define TAPS 1
            #endif

            extern "C" __global__ void NAME(T* y, const T* x, const G* grid, Dims in_shape, Dims out_shape, int r,
                    long long total) {
                GRID_STRIDE(o, total) {
                    long long out_plane = 1, in_plane = 1;
                    for (int d = 2; d < r + 2; d++) { out_plane *= out_shape.d[d]; in_plane *= in_shape.d[d]; }
                    long long p = o % out_plane;
                    long long nc = o / out_plane;
                    long long n = nc / in_shape.d[1];
                    const G* g = grid + (n * out_plane + p) * r;
                    long long index[6][TAPS];
                    float weight[6][TAPS];
                    long long strides[6];
                    long long stride = 1;
                    for (int d = r - 1; d >= 0; d--) {
                        long long length = in_shape.d[d + 2];
                        strides[d] = stride;
                        stride *= length;
                        float xc = unnormalize(ld(g, r - 1 - d), length);
            #if MODE == 1
                        xc = rintf(xc);
            #endif
                        float lo = ALIGN ? 0.f : -0.5f;
                        float hi = ALIGN ? (float) length - 1.f : (float) length - 0.5f;
                        if (xc < lo || xc > hi) {
            #if PADDING == 1
                            xc = fmaxf(0.f, fminf(xc, (float) length - 1.f));
            #elif PADDING == 2
                            xc = reflect(xc, lo, hi);
            #endif
                        }
            #if MODE == 1
                        index[d][0] = pad_index((long long) xc, length, lo, hi);
                        weight[d][0] = 1.f;
            #elif MODE == 0
                        float f = floorf(xc);
                        index[d][0] = pad_index((long long) f, length, lo, hi);
                        index[d][1] = pad_index((long long) f + 1, length, lo, hi);
                        weight[d][0] = f + 1.f - xc;
                        weight[d][1] = xc - f;
            #else
                        float f = floorf(xc);
                        cubic_coefficients(xc - f, -0.75f, weight[d]);
                        for (int t = 0; t < 4; t++) index[d][t] = pad_index((long long) f - 1 + t, length, lo, hi);
            #endif
                    }
                    const T* xp = x + nc * in_plane;
                    int tap[6];
                    for (int d = 0; d < r; d++) tap[d] = 0;
                    float sum = 0.f;
                    while (true) {
                        float w = 1.f;
                        long long offset = 0;
                        bool zero = false;
                        for (int d = 0; d < r; d++) {
                            long long i = index[d][tap[d]];
                            w *= weight[d][tap[d]];
                            zero |= i < 0;
                            offset += i * strides[d];
                        }
                        if (!zero) sum += w * ld(xp, offset);
                        int d = r - 1;
                        while (d >= 0 && ++tap[d] == TAPS) { tap[d] = 0; d--; }
                        if (d < 0) break;
                    }
                    st(y, o, sum);
                }
            }
            """;

    static CudaSource resize(ResizeAttributes a, ElementType type) {
        int mode = a.mode().ordinal();
        String entry = "resize_" + a.mode().name().toLowerCase() + "_" + floatSuffix(type);
        return CudaSource.of(entry, RESIZE.replace("NAME", entry), Map.of("T", floatStorage(type), "MODE", Integer.toString(mode),
                "TRANSFORM", Integer.toString(a.transform().ordinal()), "NEAREST", Integer.toString(a.nearest().ordinal()),
                "ANTIALIAS", a.antialias() ? "1" : "0", "EXCLUDE", a.excludeOutside() ? "1" : "0",
                "EXTRAPOLATE", a.transform() == SamplingOps.CoordinateTransform.TF_CROP_AND_RESIZE ? "1" : "0"));
    }

    static CudaSource gridSample(GridSampleAttributes a, ElementType type, ElementType gridType) {
        String entry = "grid_sample_" + a.mode().name().toLowerCase() + "_" + floatSuffix(type) + "_" + floatSuffix(gridType);
        return CudaSource.of(entry, GRID_SAMPLE.replace("NAME", entry), Map.of("T", floatStorage(type), "G", floatStorage(gridType),
                "MODE", Integer.toString(a.mode().ordinal()), "PADDING", Integer.toString(a.padding().ordinal()),
                "ALIGN", a.alignCorners() ? "1" : "0"));
    }
}
