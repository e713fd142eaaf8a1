package dev.javaep.spi;

/** A point in a {@link DeviceStream} other streams wait for ({@code OrtSyncNotificationImpl}): a CUDA event. */
public interface StreamNotification extends AutoCloseable {
    /** Marks the point: everything queued on the producing stream so far. */
    void activate();

    /** Makes {@code consumerStreamHandle} wait (on the device, not the host) until the point is reached. */
    void waitOnDevice(long consumerStreamHandle);

    /** Blocks the calling thread until the point is reached. */
    void waitOnHost();

    @Override
    void close();
}
