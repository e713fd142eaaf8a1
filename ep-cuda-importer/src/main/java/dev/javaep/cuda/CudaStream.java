package dev.javaep.cuda;

import dev.javaep.spi.DeviceStream;
import dev.javaep.spi.StreamNotification;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** A non-blocking CUstream ORT uses for one stream of a session's execution plan. */
final class CudaStream implements DeviceStream {
    /** Streams not yet destroyed: memory freed after its stream is gone is freed on the default stream instead. */
    private static final Set<Long> LIVE = ConcurrentHashMap.newKeySet();

    private final CudaDevice device;
    private final long stream;

    CudaStream(CudaDevice device) {
        this.device = device;
        device.makeCurrent();
        this.stream = device.driver().streamCreate(dev.javaep.cuda.driver.CudaDriver.STREAM_NON_BLOCKING);
        LIVE.add(stream);
    }

    static boolean isLive(long stream) {
        return LIVE.contains(stream);
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
