package dev.javaep.cuda.kernel.ptx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The float arithmetic of {@link PtxMath}, step for step in Java, against double-precision
 * references: this checks the constants, the range reduction, the tanh series and its switch-over
 * point, which no GPU-free test of the PTX could. {@code ex2.approx} is stood in for by
 * {@code Math.pow(2, f)} times {@code (1 + ex2Error)}, run at 0 and at ±2 ulp, its documented bound.
 */
class PtxMathModelTest {
    private static final double TWO_ULP = 0x1p-22;

    private static float ex2(float f, double ex2Error) {
        return (float) (Math.pow(2, f) * (1 + ex2Error));
    }

    static float exp(float x, double ex2Error) {
        float xc = x < PtxMath.EXP_MIN_ARG ? PtxMath.EXP_MIN_ARG : x;
        float t = xc * PtxMath.LOG2E;
        int j = (int) Math.rint(t); // cvt.rni.s32.f32: nearest even, NaN -> 0
        float jf = j;
        float f = Math.fma(jf, -PtxMath.LN2_HI, xc);
        f = Math.fma(jf, -PtxMath.LN2_LO, f);
        f = f * PtxMath.LOG2E;
        float r = ex2(f, ex2Error);
        int j1 = j >> 1;
        int j2 = j - j1;
        float s1 = Float.intBitsToFloat((j1 + 127) << 23);
        float s2 = Float.intBitsToFloat((j2 + 127) << 23);
        r = r * s1;
        return r * s2;
    }

    static float sigmoid(float x, double ex2Error) {
        float e = exp(-Math.abs(x), ex2Error);
        float s = 1f / (1f + e);
        float es = e * s;
        return x >= 0 ? s : es;
    }

    static float tanh(float x, double ex2Error) {
        float ax = Math.abs(x);
        float s = x * x;
        float[] c = PtxMath.TANH_SERIES;
        float p = c[c.length - 1];
        for (int i = c.length - 2; i >= 0; i--) {
            p = Math.fma(p, s, c[i]);
        }
        p = p * s;
        float series = Math.fma(p, x, x);
        float e = exp(ax * -2f, ex2Error);
        float far = (1f - e) / (1f + e);
        return Math.copySign(ax < PtxMath.TANH_SERIES_LIMIT ? series : far, x);
    }

    private static void assertClose(double expected, float got, double relative, String what) {
        double err = Math.abs(got - expected);
        assertTrue(err <= relative * Math.abs(expected) + 0x1p-148,
                () -> what + ": expected " + expected + ", got " + got + " (relative error " + err / Math.abs(expected) + ")");
    }

    /** Samples spread over many binades plus a uniform sweep near the interesting points. */
    private static float[] samples(double lo, double hi) {
        Random random = new Random(7);
        float[] xs = new float[200_000];
        for (int i = 0; i < xs.length; i++) {
            double v = i % 2 == 0
                    ? lo + (hi - lo) * random.nextDouble()
                    : Math.copySign(Math.pow(2, -40 + 47 * random.nextDouble()), random.nextBoolean() ? 1 : -1);
            xs[i] = (float) Math.max(lo, Math.min(hi, v));
        }
        return xs;
    }

    @ParameterizedTest
    @ValueSource(doubles = {0, TWO_ULP, -TWO_ULP})
    void expOfNonPositiveNumbers(double ex2Error) {
        for (float x : samples(-110, 0)) {
            float xn = -Math.abs(x);
            assertClose(Math.exp(xn), exp(xn, ex2Error), 8e-7, "exp(" + xn + ")");
        }
        assertEquals(1f, exp(0f, 0));
        assertEquals(1f, exp(-0f, 0));
        assertEquals(0f, exp(Float.NEGATIVE_INFINITY, 0));
        assertEquals(0f, exp(-104f, 0));
        assertTrue(Float.isNaN(exp(Float.NaN, 0)));
        assertTrue(exp(-100f, 0) > 0, "subnormal results survive");
    }

    @ParameterizedTest
    @ValueSource(doubles = {0, TWO_ULP, -TWO_ULP})
    void sigmoidWithinOnePpm(double ex2Error) {
        for (float x : samples(-110, 110)) {
            double ref = 1 / (1 + Math.exp(-(double) x));
            assertClose(ref, sigmoid(x, ex2Error), 1e-6, "sigmoid(" + x + ")");
        }
        assertEquals(0.5f, sigmoid(0f, 0));
        assertEquals(1f, sigmoid(Float.POSITIVE_INFINITY, 0));
        assertEquals(0f, sigmoid(Float.NEGATIVE_INFINITY, 0));
        assertEquals(1f, sigmoid(Float.MAX_VALUE, 0));
        assertEquals(0f, sigmoid(-Float.MAX_VALUE, 0));
        assertTrue(Float.isNaN(sigmoid(Float.NaN, 0)));
    }

    @ParameterizedTest
    @ValueSource(doubles = {0, TWO_ULP, -TWO_ULP})
    void tanhWithinOnePpmIncludingTinyArguments(double ex2Error) {
        for (float x : samples(-20, 20)) {
            assertClose(Math.tanh(x), tanh(x, ex2Error), 1e-6, "tanh(" + x + ")");
        }
        for (float x = 0.5f; x < 0.6f; x = Math.nextUp(x)) { // every float around the switch-over
            assertClose(Math.tanh(x), tanh(x, ex2Error), 1e-6, "tanh(" + x + ")");
        }
        assertEquals(Float.MIN_VALUE, tanh(Float.MIN_VALUE, 0));
        assertEquals(1e-30f, tanh(1e-30f, 0));
        assertEquals(-0f, tanh(-0f, 0));
        assertEquals(Float.floatToRawIntBits(-0f), Float.floatToRawIntBits(tanh(-0f, 0)));
        assertEquals(1f, tanh(Float.POSITIVE_INFINITY, 0));
        assertEquals(-1f, tanh(Float.NEGATIVE_INFINITY, 0));
        assertEquals(1f, tanh(10f, 0));
        assertEquals(-1f, tanh(-Float.MAX_VALUE, 0));
        assertTrue(Float.isNaN(tanh(Float.NaN, 0)));
    }
}
