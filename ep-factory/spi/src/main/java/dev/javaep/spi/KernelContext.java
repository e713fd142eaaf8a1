package dev.javaep.spi;

/** What a compiled node sees during one {@code Run}: its inputs and a way to create its outputs. */
public interface KernelContext {
    int inputCount();

    int outputCount();

    /** Input {@code index}, or {@code null} when the input is an omitted optional one. */
    Tensor input(int index);

    /** Creates (or returns the pre-allocated) output {@code index} with this shape. */
    Tensor output(int index, long[] shape);

    /** The native stream to queue this node's device work on (a CUstream), or 0 for host EPs. */
    default long computeStream() {
        return 0L;
    }

    /**
     * Where to note the steps this Compute runs, while the host profiles the session; null otherwise (the common
     * case: ask once per Compute, and skip all timing when it is null).
     */
    default StepProfiler stepProfiler() {
        return null;
    }
}
