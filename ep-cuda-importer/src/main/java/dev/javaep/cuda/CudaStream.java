package dev.javaep.cuda;

import dev.javaep.spi.DeviceStream;
import dev.javaep.spi.StreamNotification;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** A non-blocking CUstream ORT uses for one stream of a session's execution plan. */
final class CudaStream implements DeviceStream {
    /**
     * Streams not yet destroyed, with their device: memory freed after its stream is gone is freed on the default
     * stream instead, and a copy ORT queues on a stream runs with that stream's device current.
     */
    private static final Map<Long, CudaDevice> LIVE = new ConcurrentHashMap<>();

    private final CudaDevice device;
    private final long stream;

    CudaStream(CudaDevice device) {
        this.device = device;
        device.makeCurrent();
        this.stream = device.driver().streamCreate(dev.javaep.cuda.driver.CudaDriver.STREAM_NON_BLOCKING);
        LIVE.put(stream, device);
    }

    static boolean isLive(long stream) {
        return LIVE.containsKey(stream);
    }

    /**
     * The live streams and their devices, as of now: where javaep can have queued work on any memory (an imported
     * range's release waits for them). A stream closed after this returned was synchronized by its close.
     */
    static Map<Long, CudaDevice> live() {
        return Map.copyOf(LIVE);
    }

    /** The device of a live stream this EP created; empty for the null stream and streams of others. */
    static Optional<CudaDevice> deviceOf(long stream) {
        return stream == 0 ? Optional.empty() : Optional.ofNullable(LIVE.get(stream));
    }

    CudaDevice device() {
        return device;
    }

    @Override
    public long handle() {
        return stream;
    }

    @Override
    public StreamNotification createNotification() {
        return new CudaEventNotification(device, stream);
    }

    @Override
    public void flush() {
        device.makeCurrent();
        device.driver().streamSynchronize(stream);
    }

    @Override
    public void close() {
        if (device.isLost()) {
            LIVE.remove(stream); // the handle went with the lost context
            return;
        }
        device.makeCurrent();
        try {
            // Frees ordered on this stream must have run before the handle goes away.
            device.driver().streamSynchronize(stream);
        } finally {
            LIVE.remove(stream);
            device.driver().streamDestroy(stream);
        }
    }
}
