package dev.javaep.cpu.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.VectorOperators;
import jdk.incubator.vector.VectorSpecies;

/**
 * The float32 loops that the JIT cannot vectorise by itself, written with the Vector API ({@code jdk.incubator.vector}):
 * the register-blocked inner kernel of the matrix product and the activations that need {@code exp}/{@code tanh}.
 *
 * <p>The module is an incubator module, so a JVM resolves it only when started with
 * {@code --add-modules jdk.incubator.vector} (bin/javaep, javaep.properties' jvm.options and the test JVMs pass it).
 * Callers test {@link VectorSupport#AVAILABLE} first and run their scalar loop when it is false: this class is then never
 * loaded, so a JVM without the module still runs every kernel.
 */
public final class FloatVectors {
    private static final VectorSpecies<Float> S = FloatVector.SPECIES_PREFERRED;
    private static final int L = S.length();
    private static final ByteOrder ORDER = ByteOrder.nativeOrder();

    private FloatVectors() {}

    /**
     * {@code c_r[j] += sum_p a[p*4 + r] * b[p*nb + j]} for the four accumulator rows {@code c0..c3} and columns
     * {@code j < nb}: the 4 × 2-vector tile stays in registers over the whole {@code kb} loop, so each loaded vector
     * of B feeds four fused multiply-adds. {@code a} is the packed (already scaled) panel of four rows of A, {@code b}
     * the packed block of B. Heap arrays only: the Vector API's array loads are intrinsics on every JIT, while its
     * loads from a heap {@code MemorySegment} are not.
     */
    public static void fourRows(float[] a, float[] b, int kb, int nb, float[] c0, float[] c1, float[] c2, float[] c3) {
        int j = 0;
        for (; j + 2 * L <= nb; j += 2 * L) {
            FloatVector c00 = FloatVector.fromArray(S, c0, j);
            FloatVector c01 = FloatVector.fromArray(S, c0, j + L);
            FloatVector c10 = FloatVector.fromArray(S, c1, j);
            FloatVector c11 = FloatVector.fromArray(S, c1, j + L);
            FloatVector c20 = FloatVector.fromArray(S, c2, j);
            FloatVector c21 = FloatVector.fromArray(S, c2, j + L);
            FloatVector c30 = FloatVector.fromArray(S, c3, j);
            FloatVector c31 = FloatVector.fromArray(S, c3, j + L);
            for (int p = 0, bi = j, ai = 0; p < kb; p++, bi += nb, ai += 4) {
                FloatVector b0 = FloatVector.fromArray(S, b, bi);
                FloatVector b1 = FloatVector.fromArray(S, b, bi + L);
                FloatVector a0 = FloatVector.broadcast(S, a[ai]);
                c00 = b0.fma(a0, c00);
                c01 = b1.fma(a0, c01);
                FloatVector a1 = FloatVector.broadcast(S, a[ai + 1]);
                c10 = b0.fma(a1, c10);
                c11 = b1.fma(a1, c11);
                FloatVector a2 = FloatVector.broadcast(S, a[ai + 2]);
                c20 = b0.fma(a2, c20);
                c21 = b1.fma(a2, c21);
                FloatVector a3 = FloatVector.broadcast(S, a[ai + 3]);
                c30 = b0.fma(a3, c30);
                c31 = b1.fma(a3, c31);
            }
            c00.intoArray(c0, j);
            c01.intoArray(c0, j + L);
            c10.intoArray(c1, j);
            c11.intoArray(c1, j + L);
            c20.intoArray(c2, j);
            c21.intoArray(c2, j + L);
            c30.intoArray(c3, j);
            c31.intoArray(c3, j + L);
        }
        for (; j < nb; j++) { // the columns after the last whole pair of vectors
            float s0 = c0[j];
            float s1 = c1[j];
            float s2 = c2[j];
            float s3 = c3[j];
            for (int p = 0, bi = j, ai = 0; p < kb; p++, bi += nb, ai += 4) {
                float bv = b[bi];
                s0 += a[ai] * bv;
                s1 += a[ai + 1] * bv;
                s2 += a[ai + 2] * bv;
                s3 += a[ai + 3] * bv;
            }
            c0[j] = s0;
            c1[j] = s1;
            c2[j] = s2;
            c3[j] = s3;
        }
    }

    /** As {@link #fourRows} for one accumulator row; {@code a} holds that row's {@code kb} scaled values. */
    public static void oneRow(float[] a, float[] b, int kb, int nb, float[] c0) {
        int j = 0;
        for (; j + L <= nb; j += L) {
            FloatVector c = FloatVector.fromArray(S, c0, j);
            for (int p = 0, bi = j; p < kb; p++, bi += nb) {
                c = FloatVector.fromArray(S, b, bi).fma(FloatVector.broadcast(S, a[p]), c);
            }
            c.intoArray(c0, j);
        }
        for (; j < nb; j++) {
            float s = c0[j];
            for (int p = 0, bi = j; p < kb; p++, bi += nb) {
                s += a[p] * b[bi];
            }
            c0[j] = s;
        }
    }

    /** The float32 activations computed here (in float, as ORT's CPU EP does). */
    public enum Activation { SIGMOID, TANH, EXP, NEG, ABS, RELU }

    /**
     * {@code out[i] = f(in[i])} for {@code count} float32 elements. Off-heap segments only (ORT's tensors are):
     * the Vector API's segment loads are intrinsics for native segments.
     */
    public static void apply(Activation f, MemorySegment in, MemorySegment out, long count) {
        long bytes = count * Float.BYTES;
        // one small vector loop per activation: a loop holding all six grew past what C2 inlines once a JVM had run
        // several of them, and its vectors were then allocated (~100 B per call) instead of kept in registers
        long o = switch (f) {
            case SIGMOID -> sigmoid(in, out, bytes);
            case TANH -> lanewise(VectorOperators.TANH, in, out, bytes);
            case EXP -> lanewise(VectorOperators.EXP, in, out, bytes);
            case NEG -> lanewise(VectorOperators.NEG, in, out, bytes);
            case ABS -> lanewise(VectorOperators.ABS, in, out, bytes);
            case RELU -> relu(in, out, bytes);
        };
        for (; o < bytes; o += Float.BYTES) {
            float x = in.get(FloatData.F, o);
            out.set(FloatData.F, o, switch (f) {
                case SIGMOID -> (float) (1 / (1 + Math.exp(-x)));
                case TANH -> (float) Math.tanh(x);
                case EXP -> (float) Math.exp(x);
                case NEG -> -x;
                case ABS -> Math.abs(x);
                case RELU -> Math.max(x, 0f);
            });
        }
    }

    /** Float32 layout shared by the loops above. */
    private static final class FloatData {
        static final java.lang.foreign.ValueLayout.OfFloat F = java.lang.foreign.ValueLayout.JAVA_FLOAT_UNALIGNED;
    }

    /** The whole vectors of {@link #apply}'s Sigmoid; returns the byte offset the scalar tail starts at. */
    private static long sigmoid(MemorySegment in, MemorySegment out, long bytes) {
        long step = (long) L * Float.BYTES;
        long o = 0;
        if (step <= bytes) {
            FloatVector one = FloatVector.broadcast(S, 1f);
            for (; o + step <= bytes; o += step) {
                // exp of -x overflows to +inf for very negative x, and 1 / (1 + inf) is the right 0
                FloatVector x = FloatVector.fromMemorySegment(S, in, o, ORDER);
                one.div(x.neg().lanewise(VectorOperators.EXP).add(one)).intoMemorySegment(out, o, ORDER);
            }
        }
        return o;
    }

    /** The whole vectors of a one-operator activation (a constant {@code op} at each call site, once inlined). */
    private static long lanewise(VectorOperators.Unary op, MemorySegment in, MemorySegment out, long bytes) {
        long step = (long) L * Float.BYTES;
        long o = 0;
        for (; o + step <= bytes; o += step) {
            FloatVector.fromMemorySegment(S, in, o, ORDER).lanewise(op).intoMemorySegment(out, o, ORDER);
        }
        return o;
    }

    private static long relu(MemorySegment in, MemorySegment out, long bytes) {
        long o = 0;
        for (long step = (long) L * Float.BYTES; o + step <= bytes; o += step) {
            FloatVector.fromMemorySegment(S, in, o, ORDER).max(0f).intoMemorySegment(out, o, ORDER);
        }
        return o;
    }
}
