package dev.javaep.cpu.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.function.DoubleUnaryOperator;
import org.junit.jupiter.api.Test;

/** The vector activations against {@link Math}'s (double, then rounded to float) over a dense sweep. */
class FloatVectorsTest {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    /**
     * Every 2^-12 over [-20, 20] (163,841 values), ±2^k·(1 + j/64) for k in [-40, 4] (the small magnitudes the
     * uniform steps skip), then values whose results are special or near a branch.
     */
    private static final float[] SWEEP = sweep();
    private static final float[] SPECIAL = {0f, -0f, Float.MIN_VALUE, -Float.MIN_VALUE, Float.MIN_NORMAL, 1e-30f, -1e-20f,
            0.625f, Math.nextDown(0.625f), -0.625f, Math.nextDown(-0.625f), 9f, -9f, 88.72f, 88.73f, -87.3f, -87.4f,
            -100f, -103.9f, -104f, -200f, 200f, Float.MAX_VALUE, -Float.MAX_VALUE,
            Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN};

    private static float[] sweep() {
        int n = 40 * 4096 + 1;
        float[] x = new float[n + 2 * 45 * 64];
        for (int i = 0; i < n; i++) {
            x[i] = -20f + i / 4096f;
        }
        int i = n;
        for (int k = -40; k <= 4; k++) {
            for (int j = 0; j < 64; j++) {
                x[i++] = Math.scalb(1 + j / 64f, k);
                x[i++] = -Math.scalb(1 + j / 64f, k);
            }
        }
        return x;
    }

    private static float[] apply(FloatVectors.Activation f, float[] x) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment in = arena.allocate((long) x.length * Float.BYTES, 64);
            MemorySegment out = arena.allocate((long) x.length * Float.BYTES, 64);
            MemorySegment.copy(x, 0, in, F, 0, x.length);
            FloatVectors.apply(f, in, out, x.length);
            float[] y = new float[x.length];
            MemorySegment.copy(out, F, 0, y, 0, y.length);
            return y;
        }
    }

    /**
     * The largest error in units of the float ulp of the exact result; results below {@code floor} count absolutely,
     * in ulps of {@code floor}.
     */
    private static double maxUlps(FloatVectors.Activation f, DoubleUnaryOperator exact, float[] x, float floor) {
        float[] y = apply(f, x);
        double worst = 0;
        for (int i = 0; i < x.length; i++) {
            double e = exact.applyAsDouble(x[i]);
            String at = f + "(" + x[i] + ") = " + y[i] + ", exact " + e;
            if (Double.isNaN(e) || Double.isInfinite(e) || Math.abs(e) > Float.MAX_VALUE) {
                assertEquals((float) e, y[i], at); // NaN, ±inf and results that overflow float come out exactly
                continue;
            }
            double ulp = Math.ulp(Math.max((float) Math.abs(e), floor));
            double err = Math.abs(y[i] - e) / ulp;
            assertTrue(err <= 4, at);
            if (e == 0 || x[i] == 0) {
                assertEquals(Float.floatToRawIntBits((float) e), Float.floatToRawIntBits(y[i]), at + " (sign of zero)");
            }
            worst = Math.max(worst, err);
        }
        return worst;
    }

    private static float[] sweepAndSpecial() {
        float[] x = java.util.Arrays.copyOf(SWEEP, SWEEP.length + SPECIAL.length);
        System.arraycopy(SPECIAL, 0, x, SWEEP.length, SPECIAL.length);
        return x;
    }

    @Test
    void tanhIsWithinOneAndAHalfUlpsAndSaturates() {
        assumeTrue(VectorSupport.AVAILABLE, "the Vector API is not resolved in this JVM");
        double worst = maxUlps(FloatVectors.Activation.TANH, Math::tanh, sweepAndSpecial(), Float.MIN_NORMAL);
        assertTrue(worst <= 1.5, "tanh's largest error " + worst + " ulp");
        float[] y = apply(FloatVectors.Activation.TANH, new float[] {Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, 1e-30f});
        assertEquals(1f, y[0]);
        assertEquals(-1f, y[1]);
        assertTrue(Float.isNaN(y[2]));
        assertEquals(1e-30f, y[3]);
    }

    @Test
    void expIsWithinOneUlpIncludingSubnormalsAndOverflow() {
        assumeTrue(VectorSupport.AVAILABLE, "the Vector API is not resolved in this JVM");
        double worst = maxUlps(FloatVectors.Activation.EXP, Math::exp, sweepAndSpecial(), Float.MIN_NORMAL);
        assertTrue(worst <= 1.0, "exp's largest error " + worst + " ulp");
        // the whole float range of exp, where the two exponent scales meet subnormal and overflowing results
        float[] wide = new float[200 * 256 + 1];
        for (int i = 0; i < wide.length; i++) {
            wide[i] = -105f + i / 256f;
        }
        worst = Math.max(worst, maxUlps(FloatVectors.Activation.EXP, Math::exp, wide, Float.MIN_NORMAL));
        assertTrue(worst <= 1.0, "exp's largest error " + worst + " ulp");
        float[] y = apply(FloatVectors.Activation.EXP, new float[] {Float.POSITIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.NaN, 0f, 89f, -200f});
        assertEquals(Float.POSITIVE_INFINITY, y[0]);
        assertEquals(0f, y[1]);
        assertTrue(Float.isNaN(y[2]));
        assertEquals(1f, y[3]);
        assertEquals(Float.POSITIVE_INFINITY, y[4]);
        assertEquals(0f, y[5]);
    }

    /** Below x ≈ −87 e^{−x} overflows and Sigmoid gives 0 (ORT's MLAS clamps x to ±18 itself), hence the floor. */
    @Test
    void sigmoidIsWithinTwoAndAHalfUlps() {
        assumeTrue(VectorSupport.AVAILABLE, "the Vector API is not resolved in this JVM");
        double worst = maxUlps(FloatVectors.Activation.SIGMOID, x -> 1 / (1 + Math.exp(-x)), sweepAndSpecial(), 1e-30f);
        assertTrue(worst <= 2.5, "sigmoid's largest error " + worst + " ulp");
    }

    @Test
    void negAndAbsFlipAndClearTheSignBit() {
        float[] x = new float[37]; // whole vectors and a scalar tail
        for (int i = 0; i < x.length; i++) {
            x[i] = (i % 2 == 0 ? -1 : 1) * i * 0.75f;
        }
        x[3] = -0f;
        x[4] = Float.NEGATIVE_INFINITY;
        float[] neg = apply(FloatVectors.Activation.NEG, x);
        float[] abs = apply(FloatVectors.Activation.ABS, x);
        for (int i = 0; i < x.length; i++) {
            assertEquals(Float.floatToRawIntBits(x[i]) ^ 0x80000000, Float.floatToRawIntBits(neg[i]), "neg(" + x[i] + ")");
            assertEquals(Float.floatToRawIntBits(x[i]) & 0x7fffffff, Float.floatToRawIntBits(abs[i]), "abs(" + x[i] + ")");
        }
    }
}
