package dev.javaep.cpu.kernel.elementwise;

/**
 * The binary elementwise functions as loops over lanes ({@link Lanes}): arithmetic and selection into a lane of
 * the inputs' kind, comparisons into a {@code long[]} of 0 and 1 (bool). Also the steps of the variadic ops
 * (Min, Max, Sum). Integer division and modulo by zero throw {@link ArithmeticException} (C would trap or return
 * garbage; ONNX defines no result).
 */
enum BinaryMath {
    ADD, SUB, MUL, DIV,
    /** Both operands as double, as ONNX Runtime computes {@code std::pow} for every type pair. */
    POW,
    /** Python's %: the result has the divisor's sign (Mod with fmod=0, integers only). */
    MOD,
    /** C's fmod: the result has the dividend's sign (Mod with fmod=1). */
    FMOD,
    /** {@code a < 0 ? a * slope : a}. */
    PRELU,
    MIN, MAX,
    EQUAL, LESS, GREATER, LESS_OR_EQUAL, GREATER_OR_EQUAL,
    AND, OR, XOR;

    static BinaryMath of(String opType) {
        return switch (opType) {
            case "Add", "Sum", "Mean" -> ADD;
            case "Sub" -> SUB;
            case "Mul" -> MUL;
            case "Div" -> DIV;
            case "Pow" -> POW;
            case "PRelu" -> PRELU;
            case "Min" -> MIN;
            case "Max" -> MAX;
            case "Equal" -> EQUAL;
            case "Less" -> LESS;
            case "Greater" -> GREATER;
            case "LessOrEqual" -> LESS_OR_EQUAL;
            case "GreaterOrEqual" -> GREATER_OR_EQUAL;
            case "And" -> AND;
            case "Or" -> OR;
            case "Xor" -> XOR;
            default -> throw new IllegalArgumentException("no binary function for " + opType + " (Mod: see Mod's fmod)");
        };
    }

    /** Whether the result is bool (a comparison or logic op), not the inputs' type. */
    boolean yieldsBool() {
        return ordinal() >= EQUAL.ordinal();
    }

    /** {@code out[i] = a[i] op b[i]} on float lanes for the non-comparison functions; {@code out} may be {@code a}. */
    void apply(double[] a, double[] b, double[] out, int n) {
        switch (this) {
            case ADD -> { for (int i = 0; i < n; i++) out[i] = a[i] + b[i]; }
            case SUB -> { for (int i = 0; i < n; i++) out[i] = a[i] - b[i]; }
            case MUL -> { for (int i = 0; i < n; i++) out[i] = a[i] * b[i]; }
            case DIV -> { for (int i = 0; i < n; i++) out[i] = a[i] / b[i]; }
            case POW -> { for (int i = 0; i < n; i++) out[i] = Math.pow(a[i], b[i]); }
            case FMOD -> { for (int i = 0; i < n; i++) out[i] = a[i] % b[i]; }
            case PRELU -> { for (int i = 0; i < n; i++) out[i] = a[i] < 0 ? a[i] * b[i] : a[i]; }
            case MIN -> { for (int i = 0; i < n; i++) out[i] = Math.min(a[i], b[i]); }
            case MAX -> { for (int i = 0; i < n; i++) out[i] = Math.max(a[i], b[i]); }
            default -> throw new IllegalArgumentException(this + " has no float result");
        }
    }

    /** {@code out[i] = a[i] op b[i] ? 1 : 0} on float lanes (IEEE: every comparison with NaN is false). */
    void compare(double[] a, double[] b, long[] out, int n) {
        switch (this) {
            case EQUAL -> { for (int i = 0; i < n; i++) out[i] = a[i] == b[i] ? 1 : 0; }
            case LESS -> { for (int i = 0; i < n; i++) out[i] = a[i] < b[i] ? 1 : 0; }
            case GREATER -> { for (int i = 0; i < n; i++) out[i] = a[i] > b[i] ? 1 : 0; }
            case LESS_OR_EQUAL -> { for (int i = 0; i < n; i++) out[i] = a[i] <= b[i] ? 1 : 0; }
            case GREATER_OR_EQUAL -> { for (int i = 0; i < n; i++) out[i] = a[i] >= b[i] ? 1 : 0; }
            default -> throw new IllegalArgumentException(this + " is not a comparison");
        }
    }

    /**
     * {@code out[i] = a[i] op b[i]} on integer lanes, comparisons and logic as 0/1; {@code unsigned64} says the
     * lanes hold uint64 bits (the narrower unsigned types are zero-extended, so signed arithmetic is right for them).
     */
    void apply(long[] a, long[] b, long[] out, int n, boolean unsigned64) {
        if (unsigned64) {
            switch (this) {
                case DIV -> { for (int i = 0; i < n; i++) out[i] = Long.divideUnsigned(a[i], b[i]); }
                case MOD, FMOD -> { for (int i = 0; i < n; i++) out[i] = Long.remainderUnsigned(a[i], b[i]); }
                case PRELU -> System.arraycopy(a, 0, out, 0, n);
                case MIN -> { for (int i = 0; i < n; i++) out[i] = Long.compareUnsigned(a[i], b[i]) <= 0 ? a[i] : b[i]; }
                case MAX -> { for (int i = 0; i < n; i++) out[i] = Long.compareUnsigned(a[i], b[i]) >= 0 ? a[i] : b[i]; }
                case LESS -> { for (int i = 0; i < n; i++) out[i] = Long.compareUnsigned(a[i], b[i]) < 0 ? 1 : 0; }
                case GREATER -> { for (int i = 0; i < n; i++) out[i] = Long.compareUnsigned(a[i], b[i]) > 0 ? 1 : 0; }
                case LESS_OR_EQUAL -> { for (int i = 0; i < n; i++) out[i] = Long.compareUnsigned(a[i], b[i]) <= 0 ? 1 : 0; }
                case GREATER_OR_EQUAL -> { for (int i = 0; i < n; i++) out[i] = Long.compareUnsigned(a[i], b[i]) >= 0 ? 1 : 0; }
                default -> apply(a, b, out, n, false);
            }
            return;
        }
        switch (this) {
            case ADD -> { for (int i = 0; i < n; i++) out[i] = a[i] + b[i]; }
            case SUB -> { for (int i = 0; i < n; i++) out[i] = a[i] - b[i]; }
            case MUL -> { for (int i = 0; i < n; i++) out[i] = a[i] * b[i]; }
            case DIV -> { for (int i = 0; i < n; i++) out[i] = a[i] / b[i]; }
            case MOD -> {
                for (int i = 0; i < n; i++) {
                    long r = a[i] % b[i];
                    out[i] = r != 0 && (r ^ b[i]) < 0 ? r + b[i] : r;
                }
            }
            case FMOD -> { for (int i = 0; i < n; i++) out[i] = a[i] % b[i]; }
            case PRELU -> { for (int i = 0; i < n; i++) out[i] = a[i] < 0 ? a[i] * b[i] : a[i]; }
            case MIN -> { for (int i = 0; i < n; i++) out[i] = Math.min(a[i], b[i]); }
            case MAX -> { for (int i = 0; i < n; i++) out[i] = Math.max(a[i], b[i]); }
            case EQUAL -> { for (int i = 0; i < n; i++) out[i] = a[i] == b[i] ? 1 : 0; }
            case LESS -> { for (int i = 0; i < n; i++) out[i] = a[i] < b[i] ? 1 : 0; }
            case GREATER -> { for (int i = 0; i < n; i++) out[i] = a[i] > b[i] ? 1 : 0; }
            case LESS_OR_EQUAL -> { for (int i = 0; i < n; i++) out[i] = a[i] <= b[i] ? 1 : 0; }
            case GREATER_OR_EQUAL -> { for (int i = 0; i < n; i++) out[i] = a[i] >= b[i] ? 1 : 0; }
            case AND -> { for (int i = 0; i < n; i++) out[i] = a[i] != 0 & b[i] != 0 ? 1 : 0; }
            case OR -> { for (int i = 0; i < n; i++) out[i] = a[i] != 0 | b[i] != 0 ? 1 : 0; }
            case XOR -> { for (int i = 0; i < n; i++) out[i] = a[i] != 0 ^ b[i] != 0 ? 1 : 0; }
            case POW -> throw new IllegalArgumentException("Pow computes on float lanes");
        }
    }
}
