package dev.javaep.cpu.kernel.elementwise;

/** The elementwise activation functions javaep computes. */
enum UnaryFunction {
    RELU("Relu"),
    SIGMOID("Sigmoid"),
    TANH("Tanh");

    private final String opType;

    UnaryFunction(String opType) {
        this.opType = opType;
    }

    String opType() {
        return opType;
    }

    /**
     * The logistic function without overflow: {@code exp} is only ever taken of a non-positive
     * number, so large |x| gives 0 or 1 instead of inf/inf = NaN.
     */
    static double sigmoid(double x) {
        if (x >= 0) {
            return 1.0 / (1.0 + Math.exp(-x));
        }
        double e = Math.exp(x);
        return e / (1.0 + e);
    }
}
