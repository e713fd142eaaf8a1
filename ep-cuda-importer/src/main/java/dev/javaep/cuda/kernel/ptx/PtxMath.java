package dev.javaep.cuda.kernel.ptx;

import static dev.javaep.cuda.kernel.ptx.PtxWriter.f32;

import dev.javaep.cuda.kernel.ptx.CudaKernel.UnaryOp;

/**
 * The float32 functions the kernels inline: {@code exp} of a non-positive number, relu, sigmoid
 * and tanh. Only instructions of sm_52 are used (no {@code tanh.approx}, no {@code max.NaN}).
 *
 * <p>Reference, in Java float arithmetic ({@code ex2} stands for {@code ex2.approx.ftz.f32}, which is
 * within 2 ulp of 2^f on [-0.5, 0.5]):
 * <pre>{@code
 * float exp(float x) {                       // x <= 0 (x up to +88 also works); NaN -> NaN
 *     if (x < -104f) x = -104f;              // e^-104 rounds to 0 even as a subnormal
 *     int j = (int) Math.rint(x * LOG2E);    // cvt.rni (NaN -> 0)
 *     float f = Math.fma(j, -LN2_HI, x);     // x - j*ln2, exact enough: |f| <= ln2/2
 *     f = Math.fma(j, -LN2_LO, f);
 *     float r = ex2(f * LOG2E);              // e^f in [0.70, 1.42]
 *     int j1 = j >> 1, j2 = j - j1;          // 2^j in two normal halves, so subnormal results round once
 *     return r * pow2(j1) * pow2(j2);
 * }
 * float relu(float x)    { return x < 0 ? 0 : x; }                  // NaN and -0 pass through
 * float sigmoid(float x) { float e = exp(-|x|), s = 1 / (1 + e);    // rcp.rn
 *                          return x >= 0 ? s : e * s; }              // no cancellation, no overflow
 * float tanh(float x)    { float ax = |x|, s = x*x;
 *                          float series = fma(s * P(s), x, x);       // odd Taylor series to x^17:
 *                                                                    // P(s) = c3 + c5 s + ... + c17 s^7
 *                          float e = exp(-2*ax);
 *                          float far = (1 - e) / (1 + e);            // div.rn; NaN -> NaN
 *                          return copysign(ax < 0.55f ? series : far, x); } // odd; the series gives +0 for -0
 * }</pre>
 */
final class PtxMath {
    private PtxMath() {}

    /** log2(e) rounded to float (0x3FB8AA3B). */
    static final float LOG2E = Float.intBitsToFloat(0x3FB8AA3B);
    /** ln 2 with its low 9 significand bits cleared, so j*LN2_HI is exact for |j| < 512. */
    static final float LN2_HI = Float.intBitsToFloat(0x3F317200);
    /** ln 2 - LN2_HI, rounded to float. */
    static final float LN2_LO = (float) (Math.log(2) - LN2_HI);
    /** Below this exp's argument is clamped: e^-104 is under half the smallest subnormal. */
    static final float EXP_MIN_ARG = -104f;
    /** Below this |x|, tanh uses its Taylor series (1 - e cancels less than 1 bit above it). */
    static final float TANH_SERIES_LIMIT = 0.55f;
    /** Taylor coefficients of tanh for x^3, x^5, ..., x^17 (2^2n (2^2n - 1) B_2n / (2n)!). */
    static final float[] TANH_SERIES = {
        (float) (-1.0 / 3), (float) (2.0 / 15), (float) (-17.0 / 315), (float) (62.0 / 2835),
        (float) (-1382.0 / 155925), (float) (21844.0 / 6081075), (float) (-929569.0 / 638512875),
        (float) (6404582.0 / 10854718875.0),
    };

    /** Emits {@code y = op(x)}; y and x must be different registers. */
    static void apply(PtxWriter w, UnaryOp op, String y, String x) {
        switch (op) {
            case RELU -> relu(w, y, x);
            case SIGMOID -> sigmoid(w, y, x);
            case TANH -> tanh(w, y, x);
        }
    }

    /** {@code y = x < 0 ? 0 : x}: an ordered compare is false for NaN, so NaN passes through. */
    static void relu(PtxWriter w, String y, String x) {
        String neg = w.reg(PtxType.PRED, "relu_neg");
        w.op("setp.lt.f32", neg, x, f32(0f));
        w.op("selp.f32", y, f32(0f), x, neg);
    }

    /** {@code y = e^x} for {@code x <= 0} (see the class comment); y and x must differ. */
    static void expNonPositive(PtxWriter w, String y, String x) {
        String low = w.reg(PtxType.PRED, "exp_low");
        String xc = w.reg(PtxType.F32, "exp_x");
        String t = w.reg(PtxType.F32, "exp_t");
        String j = w.reg(PtxType.S32, "exp_j");
        String jf = w.reg(PtxType.F32, "exp_jf");
        String f = w.reg(PtxType.F32, "exp_f");
        String r = w.reg(PtxType.F32, "exp_r");
        String j1 = w.reg(PtxType.S32, "exp_j1");
        String j2 = w.reg(PtxType.S32, "exp_j2");
        String bits = w.reg(PtxType.B32, "exp_bits");
        String s1 = w.reg(PtxType.F32, "exp_s1");
        String s2 = w.reg(PtxType.F32, "exp_s2");
        w.comment("exp(" + x + ") for " + x + " <= 0: x = j*ln2 + f, e^x = 2^j * e^f");
        w.op("setp.lt.f32", low, x, f32(EXP_MIN_ARG));
        w.op("selp.f32", xc, f32(EXP_MIN_ARG), x, low).why("clamp; NaN compares false and stays");
        w.op("mul.rn.f32", t, xc, f32(LOG2E));
        w.op("cvt.rni.s32.f32", j, t).why("nearest integer; NaN gives 0");
        w.op("cvt.rn.f32.s32", jf, j);
        w.op("fma.rn.f32", f, jf, f32(-LN2_HI), xc);
        w.op("fma.rn.f32", f, jf, f32(-LN2_LO), f).why("|f| <= ln2/2");
        w.op("mul.rn.f32", f, f, f32(LOG2E));
        w.op("ex2.approx.ftz.f32", r, f).why("e^f in [0.70, 1.42]");
        w.comment("times 2^j as 2^(j>>1) * 2^(j-(j>>1)): both halves are normal floats down to j = -150");
        w.op("shr.s32", j1, j, "1");
        w.op("sub.s32", j2, j, j1);
        w.op("add.s32", j1, j1, "127");
        w.op("shl.b32", bits, j1, "23");
        w.op("mov.b32", s1, bits);
        w.op("add.s32", j2, j2, "127");
        w.op("shl.b32", bits, j2, "23");
        w.op("mov.b32", s2, bits);
        w.op("mul.rn.f32", r, r, s1);
        w.op("mul.rn.f32", y, r, s2);
    }

    /** {@code y = 1/(1+e^-x)} without overflow and without cancellation. */
    static void sigmoid(PtxWriter w, String y, String x) {
        String ax = w.reg(PtxType.F32, "sig_negabs");
        String e = w.reg(PtxType.F32, "sig_e");
        String d = w.reg(PtxType.F32, "sig_d");
        String s = w.reg(PtxType.F32, "sig_s");
        String es = w.reg(PtxType.F32, "sig_es");
        String pos = w.reg(PtxType.PRED, "sig_pos");
        w.comment("sigmoid: e = exp(-|x|); x >= 0 ? 1/(1+e) : e/(1+e)");
        w.op("abs.f32", ax, x);
        w.op("neg.f32", ax, ax);
        expNonPositive(w, e, ax);
        w.op("add.rn.f32", d, e, f32(1f));
        w.op("rcp.rn.f32", s, d);
        w.op("mul.rn.f32", es, e, s);
        w.op("setp.ge.f32", pos, x, f32(0f));
        w.op("selp.f32", y, s, es, pos).why("NaN: es is NaN");
    }

    /** {@code y = tanh(x)}: series near 0, exp elsewhere; both are computed and one selected. */
    static void tanh(PtxWriter w, String y, String x) {
        String ax = w.reg(PtxType.F32, "tanh_abs");
        String s = w.reg(PtxType.F32, "tanh_s");
        String p = w.reg(PtxType.F32, "tanh_p");
        String series = w.reg(PtxType.F32, "tanh_series");
        String arg = w.reg(PtxType.F32, "tanh_arg");
        String e = w.reg(PtxType.F32, "tanh_e");
        String num = w.reg(PtxType.F32, "tanh_num");
        String den = w.reg(PtxType.F32, "tanh_den");
        String far = w.reg(PtxType.F32, "tanh_far");
        String small = w.reg(PtxType.PRED, "tanh_small");
        w.comment("tanh, |x| < " + TANH_SERIES_LIMIT + ": x + x*s*P(s), s = x*x, P = Taylor coefficients of x^3..x^17");
        w.op("abs.f32", ax, x);
        w.op("mul.rn.f32", s, x, x);
        w.op("mov.f32", p, f32(TANH_SERIES[TANH_SERIES.length - 1]));
        for (int c = TANH_SERIES.length - 2; c >= 0; c--) {
            w.op("fma.rn.f32", p, p, s, f32(TANH_SERIES[c]));
        }
        w.op("mul.rn.f32", p, p, s);
        w.op("fma.rn.f32", series, p, x, x);
        w.comment("tanh, elsewhere: (1-e)/(1+e), e = exp(-2|x|)");
        w.op("mul.rn.f32", arg, ax, f32(-2f));
        expNonPositive(w, e, arg);
        w.op("sub.rn.f32", num, f32(1f), e);
        w.op("add.rn.f32", den, f32(1f), e);
        w.op("div.rn.f32", far, num, den);
        w.op("setp.lt.f32", small, ax, f32(TANH_SERIES_LIMIT)).why("false for NaN: far is NaN");
        w.op("selp.f32", y, series, far, small);
        w.op("copysign.f32", y, x, y).why("tanh is odd: x's sign (the series gives +0 for -0)");
    }
}
