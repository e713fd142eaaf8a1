package dev.javaep.examples.jcuda;

/** A CUDA driver call made through JCuda returned an error: the call, its {@code CUresult} and that result's name. */
public final class JCudaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String call;
    private final int result;
    private final String errorName;

    JCudaException(String call, int result, String errorName, String context) {
        super("javaep: " + call + " failed with " + errorName + " (" + result + ")" + (context.isEmpty() ? "" : ": " + context));
        this.call = call;
        this.result = result;
        this.errorName = errorName;
    }

    /** The driver function, e.g. {@code cuMemCreate}. */
    public String call() {
        return call;
    }

    /** The {@code CUresult} value. */
    public int result() {
        return result;
    }

    /** {@code cuGetErrorName} of the result, e.g. {@code CUDA_ERROR_OUT_OF_MEMORY}. */
    public String errorName() {
        return errorName;
    }
}
