package dev.javaep.spi;

/**
 * A queue of device work ({@code OrtSyncStreamImpl}): a CUstream for CUDA. ORT creates one per
 * stream of a session's execution plan and passes its {@link #handle()} to kernels and copies.
 */
public interface DeviceStream extends AutoCloseable {
    /** The native stream; what {@code OrtApi::SyncStream_GetHandle} gives apps. */
    long handle();

    /** A marker other streams (or the host) can wait for once {@link StreamNotification#activate()}d. */
    StreamNotification createNotification();

    /** Waits until the work queued so far is done (ORT flushes at the end of a synchronous Run). */
    void flush();

    /** Called when a Run that used this stream ends; release per-run resources here. */
    default void onSessionRunEnd() {}

    @Override
    void close();
}
