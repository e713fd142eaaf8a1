package dev.javaep.cuda.driver;

/**
 * Why CUDA cannot be used in this process at all (no driver library, {@code cuInit} failed, a driver
 * too old to be a CUDA driver). Checked, because callers are expected to fall back (publish no CUDA
 * device) rather than fail; a failing call on a working driver is a {@link CudaException} instead.
 */
public final class CudaUnavailableException extends Exception {
    private static final long serialVersionUID = 1L;

    public CudaUnavailableException(String message) {
        super(message);
    }

    public CudaUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }
}
