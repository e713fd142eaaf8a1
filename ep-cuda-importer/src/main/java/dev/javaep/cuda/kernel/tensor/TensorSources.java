package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.kernel.CudaSource;
import dev.javaep.spi.ElementType;
import java.util.HashMap;
import java.util.Map;

/**
 * The family's CUDA C kernels. Data movers are specialised by element size only ({@code T} is an unsigned
 * integer of 1, 2, 4 or 8 bytes, or a 16-byte struct): they move elements without looking at them, like the
 * Java reference kernels in {@code dev.javaep.cpu.kernel.tensor}. Index inputs are {@code I} (int or long long).
 * Each kernel's Java reference is named beside it.
 */
final class TensorSources {
    private TensorSources() {}

    /** Shared by every template: the 16-byte element and a constant element made from two 64-bit words. */
    private static final String COMMON = """
            struct Bytes16 { unsigned long long lo, hi; };
            template <typename E> __device__ __forceinline__ E from_bits(unsigned long long lo, unsigned long long hi) {
                unsigned long long bits[2] = {lo, hi};
                return *reinterpret_cast<const E*>(bits);
            }
            """;

    /**
     * out[Σ idx·target] = in[Σ idx·source] over {@code shape} (rank ≤ 8; out and in already point at the
     * copy's offsets). Java reference: {@code StridedCopier}.
     */
    static final String STRIDED_COPY = COMMON + """
            extern "C" __global__ void javaep_strided_copy(T* out, const T* in, Dims shape, Dims source, Dims target,
                                                           int rank, long long n) {
                GRID_STRIDE(i, n) {
                    long long rest = i, s = 0, t = 0;
                    for (int k = rank - 1; k >= 0; k--) {
                        long long d = shape.d[k];
                        long long idx = rest % d;
                        rest /= d;
                        s += idx * source.d[k];
                        t += idx * target.d[k];
                    }
                    out[t] = in[s];
                }
            }
            """;

    /**
     * Pad: each output element reads the input element the mode maps it to along every axis, or the constant
     * (mode: 0 constant, 1 reflect, 2 edge, 3 wrap, as {@code TensorOps.PadMode}). Java reference: {@code PadKernel}.
     */
    static final String PAD = COMMON + """
            __device__ __forceinline__ long long pad_source(long long i, long long dim, int mode) {
                if (i >= 0 && i < dim) return i;
                if (mode == 0) return -1;
                if (mode == 2) return i < 0 ? 0 : dim - 1;
                if (mode == 3) { long long m = i % dim; return m < 0 ? m + dim : m; }
                if (dim == 1) return 0;
                long long period = 2 * (dim - 1);
                long long m = i % period;
                if (m < 0) m += period;
                return m < dim ? m : period - m;
            }
            extern "C" __global__ void javaep_pad(T* out, const T* in, Dims outShape, Dims inShape, Dims begin, int rank,
                                                  int mode, unsigned long long lo, unsigned long long hi, long long n) {
                const T value = from_bits<T>(lo, hi);
                GRID_STRIDE(i, n) {
                    long long rest = i, s = 0, stride = 1;
                    bool constant = false;
                    for (int k = rank - 1; k >= 0; k--) {
                        long long idx = rest % outShape.d[k];
                        rest /= outShape.d[k];
                        long long src = pad_source(idx - begin.d[k], inShape.d[k], mode);
                        constant |= src < 0;
                        s += src * stride;
                        stride *= inShape.d[k];
                    }
                    out[i] = constant ? value : in[s];
                }
            }
            """;

    /**
     * Gather: out[o, j, r] = in[o, indices[j], r] (negative indices from the back; an index out of range, which
     * ONNX calls an error, gives zeros). Java reference: {@code GatherKernel}.
     */
    static final String GATHER = COMMON + """
            extern "C" __global__ void javaep_gather(T* out, const T* in, const I* indices, long long axisDim,
                                                     long long inner, long long count, long long n) {
                GRID_STRIDE(i, n) {
                    long long r = i % inner;
                    long long t = i / inner;
                    long long j = t % count;
                    long long o = t / count;
                    long long k = (long long) indices[j];
                    if (k < 0) k += axisDim;
                    out[i] = (k < 0 || k >= axisDim) ? from_bits<T>(0, 0) : in[(o * axisDim + k) * inner + r];
                }
            }
            """;

    /** GatherElements: out[i] = in[i's coordinates, axis one from indices[i]]. Java reference: {@code GatherElementsKernel}. */
    static final String GATHER_ELEMENTS = COMMON + """
            extern "C" __global__ void javaep_gather_elements(T* out, const T* in, const I* indices, Dims shape,
                                                              Dims strides, int rank, int axis, long long axisDim,
                                                              long long n) {
                GRID_STRIDE(i, n) {
                    long long rest = i, s = 0;
                    for (int k = rank - 1; k >= 0; k--) {
                        long long idx = rest % shape.d[k];
                        rest /= shape.d[k];
                        if (k != axis) s += idx * strides.d[k];
                    }
                    long long v = (long long) indices[i];
                    if (v < 0) v += axisDim;
                    out[i] = (v < 0 || v >= axisDim) ? from_bits<T>(0, 0) : in[s + v * strides.d[axis]];
                }
            }
            """;

    /**
     * ScatterND after the data was copied to out: each thread owns one element {@code e} of the slice and applies
     * the tuples in order (so repeated indices reduce in order, as the Java reference {@code ScatterNDKernel}
     * does); REDUCE(o, u) combines out[o] with updates[u]. A tuple with an index out of range is skipped.
     */
    static final String SCATTER_ND = COMMON + """
            extern "C" __global__ void javaep_scatter_nd(T* out, const T* updates, const long long* indices, Dims dataShape,
                                                         Dims strides, int depth, long long tuples, long long slice) {
                GRID_STRIDE(e, slice) {
                    for (long long n = 0; n < tuples; n++) {
                        long long offset = 0;
                        bool inRange = true;
                        for (int j = 0; j < depth; j++) {
                            long long v = indices[n * depth + j];
                            if (v < 0) v += dataShape.d[j];
                            inRange &= v >= 0 && v < dataShape.d[j];
                            offset += v * strides.d[j];
                        }
                        if (inRange) { REDUCE(offset + e, n * slice + e); }
                    }
                }
            }
            """;

    /** ConstantOfShape: every element the same bits. Java reference: {@code ConstantKernel}. */
    static final String FILL = COMMON + """
            extern "C" __global__ void javaep_fill(T* out, unsigned long long lo, unsigned long long hi, long long n) {
                const T value = from_bits<T>(lo, hi);
                GRID_STRIDE(i, n) { out[i] = value; }
            }
            """;

    /** Range: start + i·delta, one fused multiply-add in double for float and double, in int64 for integers. Java reference: {@code RangeKernel}. */
    static final String RANGE = """
            extern "C" __global__ void javaep_range(T* out, unsigned long long startBits, unsigned long long deltaBits,
                                                    long long n) {
            #if INTEGRAL
                const long long start = (long long) startBits, delta = (long long) deltaBits;
                GRID_STRIDE(i, n) { out[i] = (T) (start + i * delta); }
            #else
                const double start = *reinterpret_cast<const double*>(&startBits);
                const double delta = *reinterpret_cast<const double*>(&deltaBits);
                GRID_STRIDE(i, n) {
                    double v; // one fused multiply-add, as the Java reference computes it (Math.fma)
                    asm("fma.rn.f64 %0, %1, %2, %3;" : "=d"(v) : "d"((double) i), "d"(delta), "d"(start));
                    out[i] = (T) v;
                }
            #endif
            }
            """;

    /** The C type that moves elements of {@code bytes} bytes. */
    static String moverType(int bytes) {
        return switch (bytes) {
            case 1 -> "unsigned char";
            case 2 -> "unsigned short";
            case 4 -> "unsigned int";
            case 8 -> "unsigned long long";
            case 16 -> "Bytes16";
            default -> throw new IllegalArgumentException("no CUDA mover for " + bytes + "-byte elements");
        };
    }

    /** The C type of an index element type (int32 or int64). */
    static String indexType(ElementType type) {
        return switch (type) {
            case INT32 -> "int";
            case INT64 -> "long long";
            default -> throw new IllegalArgumentException("indices of " + type);
        };
    }

    /** The C type that computes on {@code type} (Range, ScatterND's reductions). */
    static String arithmeticType(ElementType type) {
        return switch (type) {
            case FLOAT -> "float";
            case FLOAT16 -> "half";
            case DOUBLE -> "double";
            case INT16 -> "short";
            case INT32 -> "int";
            case INT64 -> "long long";
            default -> throw new IllegalArgumentException("no CUDA arithmetic for " + type);
        };
    }

    /** A data mover of {@code bytes}-byte elements. */
    static CudaSource mover(String entry, String body, int bytes) {
        return CudaSource.of(entry, body, Map.of("T", moverType(bytes)));
    }

    /** A data mover of {@code bytes}-byte elements reading {@code indexType} indices. */
    static CudaSource indexed(String entry, String body, int bytes, ElementType indexType) {
        return CudaSource.of(entry, body, Map.of("T", moverType(bytes), "I", indexType(indexType)));
    }

    /** ScatterND for {@code type}: without a reduction any element size; with one, float, half, double, int32, int64. */
    static CudaSource scatterND(ElementType type, dev.javaep.spi.ops.TensorOps.ScatterReduction reduction) {
        Map<String, String> defines = new HashMap<>();
        if (reduction == dev.javaep.spi.ops.TensorOps.ScatterReduction.NONE) {
            defines.put("T", moverType(type.byteSize()));
            defines.put("REDUCE(o, u)", "out[o] = updates[u]");
            return CudaSource.of("javaep_scatter_nd", SCATTER_ND, defines);
        }
        String t = arithmeticType(type);
        defines.put("T", t);
        boolean viaFloat = type == ElementType.FLOAT || type == ElementType.FLOAT16;
        String a = viaFloat ? "ld(out, o)" : "out[o]";
        String b = viaFloat ? "ld(updates, u)" : "updates[u]";
        String combined = switch (reduction) {
            case ADD -> a + " + " + b;
            case MUL -> a + " * " + b;
            case MAX -> "(" + a + " >= " + b + " ? " + a + " : " + b + ")";
            case MIN -> "(" + a + " <= " + b + " ? " + a + " : " + b + ")";
            case NONE -> b;
        };
        defines.put("REDUCE(o, u)", viaFloat ? "st(out, o, " + combined + ")" : "out[o] = (" + t + ") (" + combined + ")");
        return CudaSource.of("javaep_scatter_nd", SCATTER_ND, defines);
    }

    static CudaSource range(ElementType type) {
        boolean integral = type != ElementType.FLOAT && type != ElementType.DOUBLE;
        return CudaSource.of("javaep_range", RANGE, Map.of("T", arithmeticType(type), "INTEGRAL", integral ? "1" : "0"));
    }
}
