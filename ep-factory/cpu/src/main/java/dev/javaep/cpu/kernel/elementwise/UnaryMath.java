package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.spi.ops.ElementwiseOps.Activation;

/**
 * The unary elementwise functions, each written once as a loop over a lane ({@link Lanes}): on {@code double}
 * for the float types and on {@code long} for the integer ones. These loops are the reference the CUDA template
 * is tested against. Formulas follow the ONNX operator definitions; where ONNX leaves the evaluation open, the
 * form ONNX Runtime's CPU kernels use (stable Softplus, Selu as {@code gamma*(alpha*e^x - alpha)}).
 */
enum UnaryMath {
    RELU, LEAKY_RELU, ELU, SELU, CELU, HARD_SIGMOID, HARD_SWISH, GELU, GELU_TANH, SOFTPLUS, SOFTSIGN, MISH,
    SIGMOID, TANH, EXP, LOG, SQRT, RECIPROCAL, FLOOR, CEIL, NEG, ABS, ROUND, SIGN, ERF, SIN, COS, NOT;

    private static final double SQRT_HALF = Math.sqrt(0.5);
    private static final double SQRT_TWO_OVER_PI = Math.sqrt(2 / Math.PI);
    private static final double TWO_OVER_SQRT_PI = 2 / Math.sqrt(Math.PI);

    /** The function of an ONNX op type (Gelu picks its form from {@code approximate}). */
    static UnaryMath of(String opType, boolean geluTanh) {
        return switch (opType) {
            case "Relu" -> RELU;
            case "LeakyRelu" -> LEAKY_RELU;
            case "Elu" -> ELU;
            case "Selu" -> SELU;
            case "Celu" -> CELU;
            case "HardSigmoid" -> HARD_SIGMOID;
            case "HardSwish" -> HARD_SWISH;
            case "Gelu" -> geluTanh ? GELU_TANH : GELU;
            case "Softplus" -> SOFTPLUS;
            case "Softsign" -> SOFTSIGN;
            case "Mish" -> MISH;
            case "Sigmoid" -> SIGMOID;
            case "Tanh" -> TANH;
            case "Exp" -> EXP;
            case "Log" -> LOG;
            case "Sqrt" -> SQRT;
            case "Reciprocal" -> RECIPROCAL;
            case "Floor" -> FLOOR;
            case "Ceil" -> CEIL;
            case "Neg" -> NEG;
            case "Abs" -> ABS;
            case "Round" -> ROUND;
            case "Sign" -> SIGN;
            case "Erf" -> ERF;
            case "Sin" -> SIN;
            case "Cos" -> COS;
            case "Not" -> NOT;
            default -> throw new IllegalArgumentException("no unary function for " + opType);
        };
    }

    /** Whether the function is defined on integers (Relu, Neg, Abs, Sign) or bool (Not). */
    boolean onIntegers() {
        return this == RELU || this == NEG || this == ABS || this == SIGN || this == NOT;
    }

    /** {@code y[i] = f(x[i])} for {@code i < n} on a float lane; {@code y} may be {@code x}. */
    void apply(double[] x, double[] y, int n, Activation p) {
        double alpha = p.alpha();
        double beta = p.beta();
        double gamma = p.gamma();
        switch (this) {
            case RELU -> { for (int i = 0; i < n; i++) y[i] = Math.max(x[i], 0); }
            case LEAKY_RELU -> { for (int i = 0; i < n; i++) y[i] = x[i] >= 0 ? x[i] : alpha * x[i]; }
            case ELU -> { for (int i = 0; i < n; i++) y[i] = x[i] >= 0 ? x[i] : alpha * Math.expm1(x[i]); }
            case SELU -> { for (int i = 0; i < n; i++) y[i] = x[i] > 0 ? gamma * x[i] : gamma * (alpha * Math.exp(x[i]) - alpha); }
            case CELU -> { for (int i = 0; i < n; i++) y[i] = Math.max(0, x[i]) + Math.min(0, alpha * Math.expm1(x[i] / alpha)); }
            case HARD_SIGMOID -> { for (int i = 0; i < n; i++) y[i] = Math.max(0, Math.min(1, alpha * x[i] + beta)); }
            case HARD_SWISH -> { for (int i = 0; i < n; i++) y[i] = x[i] * Math.max(0, Math.min(1, x[i] / 6 + 0.5)); }
            case GELU -> { for (int i = 0; i < n; i++) y[i] = 0.5 * x[i] * (1 + erf(x[i] * SQRT_HALF)); }
            case GELU_TANH -> {
                for (int i = 0; i < n; i++) {
                    double v = x[i];
                    y[i] = 0.5 * v * (1 + Math.tanh(SQRT_TWO_OVER_PI * (v + 0.044715 * v * v * v)));
                }
            }
            case SOFTPLUS -> { for (int i = 0; i < n; i++) y[i] = softplus(x[i]); }
            case SOFTSIGN -> { for (int i = 0; i < n; i++) y[i] = x[i] / (1 + Math.abs(x[i])); }
            case MISH -> { for (int i = 0; i < n; i++) y[i] = x[i] * Math.tanh(softplus(x[i])); }
            case SIGMOID -> { for (int i = 0; i < n; i++) y[i] = UnaryFunction.sigmoid(x[i]); }
            case TANH -> { for (int i = 0; i < n; i++) y[i] = Math.tanh(x[i]); }
            case EXP -> { for (int i = 0; i < n; i++) y[i] = Math.exp(x[i]); }
            case LOG -> { for (int i = 0; i < n; i++) y[i] = Math.log(x[i]); }
            case SQRT -> { for (int i = 0; i < n; i++) y[i] = Math.sqrt(x[i]); }
            case RECIPROCAL -> { for (int i = 0; i < n; i++) y[i] = 1 / x[i]; }
            case FLOOR -> { for (int i = 0; i < n; i++) y[i] = Math.floor(x[i]); }
            case CEIL -> { for (int i = 0; i < n; i++) y[i] = Math.ceil(x[i]); }
            case NEG -> { for (int i = 0; i < n; i++) y[i] = -x[i]; }
            case ABS -> { for (int i = 0; i < n; i++) y[i] = Math.abs(x[i]); }
            case ROUND -> { for (int i = 0; i < n; i++) y[i] = Math.rint(x[i]); }
            case SIGN -> { for (int i = 0; i < n; i++) y[i] = Math.signum(x[i]); }
            case ERF -> { for (int i = 0; i < n; i++) y[i] = erf(x[i]); }
            case SIN -> { for (int i = 0; i < n; i++) y[i] = Math.sin(x[i]); }
            case COS -> { for (int i = 0; i < n; i++) y[i] = Math.cos(x[i]); }
            case NOT -> throw new IllegalArgumentException("Not is defined on bool only");
        }
    }

    /**
     * {@code y[i] = f(x[i])} on an integer lane: Relu, Neg and Abs wrap as C's do once stored; {@code unsigned64}
     * says the lane holds uint64 bits (Abs is then the identity and Sign 0 or 1).
     */
    void apply(long[] x, long[] y, int n, boolean unsigned64) {
        switch (this) {
            case RELU -> { for (int i = 0; i < n; i++) y[i] = Math.max(x[i], 0); }
            case NEG -> { for (int i = 0; i < n; i++) y[i] = -x[i]; }
            case ABS -> {
                if (unsigned64) {
                    System.arraycopy(x, 0, y, 0, n);
                } else {
                    for (int i = 0; i < n; i++) y[i] = Math.abs(x[i]);
                }
            }
            case SIGN -> {
                if (unsigned64) {
                    for (int i = 0; i < n; i++) y[i] = x[i] != 0 ? 1 : 0;
                } else {
                    for (int i = 0; i < n; i++) y[i] = Long.signum(x[i]);
                }
            }
            case NOT -> { for (int i = 0; i < n; i++) y[i] = x[i] == 0 ? 1 : 0; }
            default -> throw new IllegalArgumentException(this + " is not defined on integers");
        }
    }

    /** log(1 + e^x) without overflow: e^x is only taken of a non-positive number. */
    static double softplus(double x) {
        return x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x));
    }

    /**
     * The error function to about 1e-15 relative: its Maclaurin series below |x| = 2.5, the continued fraction
     * of erfc above (Java has no erf). float results are therefore correctly rounded but for rare ties.
     */
    static double erf(double x) {
        double ax = Math.abs(x);
        if (ax < 2.5) {
            double x2 = x * x;
            double term = x;
            double sum = x;
            for (int n = 1; n < 80; n++) {
                term *= -x2 / n;
                double t = term / (2 * n + 1);
                sum += t;
                if (Math.abs(t) < 1e-17 * Math.abs(sum)) {
                    break;
                }
            }
            return sum * TWO_OVER_SQRT_PI;
        }
        if (Double.isNaN(x)) {
            return x;
        }
        if (ax >= 6) {
            return Math.copySign(1.0, x);
        }
        double f = ax;
        for (int k = 60; k > 0; k--) {
            f = ax + (k * 0.5) / f;
        }
        return Math.copySign(1 - Math.exp(-ax * ax) / (Math.sqrt(Math.PI) * f), x);
    }
}
