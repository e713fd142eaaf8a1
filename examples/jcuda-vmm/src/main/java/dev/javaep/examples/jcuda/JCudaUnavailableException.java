package dev.javaep.examples.jcuda;

/**
 * JCuda cannot be used in this process: its native library did not load (no NVIDIA driver, so no
 * {@code libcuda.so.1}), or the driver loaded but reports no usable device. The message says which.
 * GPU tests turn this into a visible skip.
 */
public final class JCudaUnavailableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public JCudaUnavailableException(String message) {
        super(message);
    }

    public JCudaUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
