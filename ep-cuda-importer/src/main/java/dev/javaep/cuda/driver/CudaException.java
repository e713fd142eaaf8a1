package dev.javaep.cuda.driver;

/**
 * A CUDA driver call returned a {@code CUresult} other than {@code CUDA_SUCCESS}. The message names the
 * exact exported symbol (e.g. {@code cuMemAlloc_v2}), so it can be matched with driver logs and
 * {@code cuda.h}: {@code "cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory"}, followed by
 * a detail block where one exists (the JIT log of a failed {@code cuModuleLoadDataEx}).
 */
public final class CudaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int result;
    private final String errorName;
    private final String function;
    private final String description;

    public CudaException(String function, int result, String errorName, String description) {
        this(function, result, errorName, description, null);
    }

    /** @param detail appended on its own lines after the one-line summary; null or blank for none */
    public CudaException(String function, int result, String errorName, String description, String detail) {
        super(message(function, result, errorName, description, detail));
        this.result = result;
        this.errorName = errorName;
        this.function = function;
        this.description = description;
    }

    static String message(String function, int result, String errorName, String description, String detail) {
        String summary = function + " failed: " + errorName + " (" + result + "): " + description;
        return detail == null || detail.isBlank() ? summary : summary + "\n" + detail.strip();
    }

    /** The {@code CUresult} value. */
    public int result() {
        return result;
    }

    /** The {@code CUresult} enum name, e.g. {@code CUDA_ERROR_OUT_OF_MEMORY}. */
    public String errorName() {
        return errorName;
    }

    /** The exported symbol that failed, e.g. {@code cuMemAlloc_v2}. */
    public String function() {
        return function;
    }

    /** The driver's text for the code ({@code cuGetErrorString}), e.g. {@code out of memory}. */
    public String description() {
        return description;
    }
}
