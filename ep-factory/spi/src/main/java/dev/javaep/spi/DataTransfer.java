package dev.javaep.spi;

import java.util.List;

/**
 * Copies between host memory and an EP's device memory (and within the device), as ORT's
 * {@code OrtDataTransferImpl}. ORT asks {@link #canCopy} before using it; answer {@code false} for
 * anything you do not handle (ORT copies host↔host itself).
 */
public interface DataTransfer {
    boolean canCopy(MemoryLocation source, MemoryLocation destination);

    /** Performs the copies, in order; each names the stream to use (0 = none: copy synchronously). */
    void copy(List<Copy> copies);

    /**
     * One tensor's bytes to copy.
     *
     * @param streamHandle the native stream ORT chose for the copy (e.g. a CUstream), or 0
     */
    record Copy(long source, MemoryLocation sourceLocation, long destination, MemoryLocation destinationLocation,
                long bytes, long streamHandle) {}
}
