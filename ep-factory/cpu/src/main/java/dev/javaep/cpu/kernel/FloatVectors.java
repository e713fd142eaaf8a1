package dev.javaep.cpu.kernel;

import java.lang.foreign.MemorySegment;
import java.nio.ByteOrder;
import jdk.incubator.vector.FloatVector;
import jdk.incubator.vector.IntVector;
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
            case TANH -> tanh(in, out, bytes);
            case EXP -> exp(in, out, bytes);
            case NEG -> neg(in, out, bytes);
            case ABS -> abs(in, out, bytes);
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
                one.div(exp(x.neg()).add(one)).intoMemorySegment(out, o, ORDER);
            }
        }
        return o;
    }

    private static long tanh(MemorySegment in, MemorySegment out, long bytes) {
        long o = 0;
        for (long step = (long) L * Float.BYTES; o + step <= bytes; o += step) {
            tanh(FloatVector.fromMemorySegment(S, in, o, ORDER)).intoMemorySegment(out, o, ORDER);
        }
        return o;
    }

    private static long exp(MemorySegment in, MemorySegment out, long bytes) {
        long o = 0;
        for (long step = (long) L * Float.BYTES; o + step <= bytes; o += step) {
            exp(FloatVector.fromMemorySegment(S, in, o, ORDER)).intoMemorySegment(out, o, ORDER);
        }
        return o;
    }

    // Where no SVML stub exists (this JDK on Linux without it, other CPUs) the Vector API's lanewise EXP and TANH fall
    // back to a Java loop over the lanes, which made Tanh ~60% of espcn_x2's time; these are built from FMA and
    // integer ops that C2 always intrinsifies. Coefficients are Cephes' expf/tanhf (float minimax fits).

    /** 1.5 · 2^23: adding it rounds a float of magnitude below 2^22 to an integer held in the low mantissa bits. */
    private static final float ROUND_SHIFTER = 0x1.8p23f;
    private static final int ROUND_SHIFTER_BITS = Float.floatToRawIntBits(ROUND_SHIFTER);
    private static final float LOG2_E = 1.44269504088896341f;
    /** ln 2 split so that {@code n · LN2_HI} is exact for the |n| ≤ 150 used here. */
    private static final float LN2_HI = 0.693359375f;
    private static final float LN2_LO = -2.12194440e-4f;

    /**
     * e^x to about 1 ulp: x = n·ln2 + r with |r| ≤ ln2/2, a degree-6 polynomial for e^r, then 2^n applied as two
     * exponent-field scales 2^(n/2)·2^(n−n/2), so that results that overflow become +inf and those below
     * {@code Float.MIN_NORMAL} come out as subnormals or 0 by the multiply's own rounding. NaN stays NaN (min/max
     * keep it, and NaN times any scale is NaN).
     */
    static FloatVector exp(FloatVector x) {
        FloatVector xc = x.max(-104f).min(89f); // beyond these e^x is 0 or +inf in float; keeps |n| ≤ 150
        FloatVector shifted = xc.fma(LOG2_E, ROUND_SHIFTER);
        FloatVector n = shifted.sub(ROUND_SHIFTER);
        FloatVector r = n.fma(FloatVector.broadcast(S, -LN2_HI), xc);
        r = n.fma(FloatVector.broadcast(S, -LN2_LO), r);
        FloatVector p = r.fma(1.9875691500e-4f, 1.3981999507e-3f);
        p = p.fma(r, FloatVector.broadcast(S, 8.3334519073e-3f));
        p = p.fma(r, FloatVector.broadcast(S, 4.1665795894e-2f));
        p = p.fma(r, FloatVector.broadcast(S, 1.6666665459e-1f));
        p = p.fma(r, FloatVector.broadcast(S, 5.0000001201e-1f));
        FloatVector er = p.fma(r.mul(r), r).add(1f); // 1 + r + r²·p(r)
        IntVector ni = shifted.viewAsIntegralLanes().sub(ROUND_SHIFTER_BITS);
        IntVector half = ni.lanewise(VectorOperators.ASHR, 1);
        FloatVector scale1 = half.add(127).lanewise(VectorOperators.LSHL, 23).viewAsFloatingLanes();
        FloatVector scale2 = ni.sub(half).add(127).lanewise(VectorOperators.LSHL, 23).viewAsFloatingLanes();
        return er.mul(scale1).mul(scale2);
    }

    /**
     * tanh x to about 2 ulp, computed on |x| and given x's sign bit (so tanh(−0) = −0 and NaN stays NaN): below
     * |x| = 0.625 the odd polynomial x + x³·q(x²), which keeps the relative error small near 0 where
     * 1 − 2/(e^{2x}+1) would cancel; above it that formula with |x| capped at 9, where tanh is 1 in float
     * (so ±inf give ±1).
     */
    static FloatVector tanh(FloatVector x) {
        FloatVector a = x.abs();
        FloatVector e = exp(a.min(9f).mul(2f));
        FloatVector large = FloatVector.broadcast(S, 1f).sub(FloatVector.broadcast(S, 2f).div(e.add(1f)));
        FloatVector z = a.mul(a);
        FloatVector q = z.fma(-5.70498872745e-3f, 2.06390887954e-2f);
        q = q.fma(z, FloatVector.broadcast(S, -5.37397155531e-2f));
        q = q.fma(z, FloatVector.broadcast(S, 1.33314422036e-1f));
        q = q.fma(z, FloatVector.broadcast(S, -3.33332819422e-1f));
        FloatVector small = q.mul(z).fma(a, a);
        FloatVector magnitude = large.blend(small, a.lt(0.625f));
        IntVector sign = x.viewAsIntegralLanes().and(0x80000000);
        return magnitude.viewAsIntegralLanes().or(sign).viewAsFloatingLanes();
    }

    // Neg and Abs have a loop each, not one loop taking the operator: once C2 compiled such a shared loop on its own,
    // the operator was no constant there and lanewise(op) ran the Vector API's per-lane Java fallback.
    private static long neg(MemorySegment in, MemorySegment out, long bytes) {
        long o = 0;
        for (long step = (long) L * Float.BYTES; o + step <= bytes; o += step) {
            FloatVector.fromMemorySegment(S, in, o, ORDER).neg().intoMemorySegment(out, o, ORDER);
        }
        return o;
    }

    private static long abs(MemorySegment in, MemorySegment out, long bytes) {
        long o = 0;
        for (long step = (long) L * Float.BYTES; o + step <= bytes; o += step) {
            FloatVector.fromMemorySegment(S, in, o, ORDER).abs().intoMemorySegment(out, o, ORDER);
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
