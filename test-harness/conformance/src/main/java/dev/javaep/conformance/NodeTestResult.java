package dev.javaep.conformance;

/** The outcome of one ONNX node test on one EP. */
public record NodeTestResult(String test, Outcome outcome, String detail) {
    public enum Outcome { PASSED, FAILED, NOT_SUPPORTED }

    public boolean passed() {
        return outcome == Outcome.PASSED;
    }

    @Override
    public String toString() {
        return String.format("%-14s %s%s", outcome, test, detail.isEmpty() ? "" : "  " + detail);
    }
}
