package dev.javaep.conformance.kit;

/** What one check concluded. Only {@link #PASS} and {@link #SKIP} leave a run green. */
public enum Verdict {
    PASS, FAIL,
    /** The child JVM running the check died (a signal, a halt, an exit): the EP took the host process down. */
    CRASH,
    /** The check did not finish within the group's time limit; the child JVM was killed. */
    TIMEOUT,
    /** The check does not apply to this EP (no device memory, no corpus) or was not reached; the reason says which. */
    SKIP;

    public boolean failed() {
        return this == FAIL || this == CRASH || this == TIMEOUT;
    }
}
