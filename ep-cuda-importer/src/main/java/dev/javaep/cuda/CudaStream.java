package dev.javaep.cuda;

import dev.javaep.spi.DeviceStream;
import dev.javaep.spi.StreamNotification;

/** A non-blocking CUstream ORT uses for one stream of a session's execution plan. */
final class CudaStream implements DeviceStream {
    /**
     * Streams not yet destroyed, with their device: memory freed after its stream is gone is freed on the default
     * stream instead, and a copy ORT queues on a stream runs with that stream's device current.
     */
    private static final LiveStreams LIVE = new LiveStreams();

    private final CudaDevice device;
    private final long stream;

    CudaStream(CudaDevice device) {
        this.device = device;
        device.makeCurrent();
        this.stream = device.driver().streamCreate(dev.javaep.cuda.driver.CudaDriver.STREAM_NON_BLOCKING);
        LIVE.add(stream, device);
    }

    static boolean isLive(long stream) {
        return LIVE.deviceOrNull(stream) != null;
    }

    /**
     * Synchronizes every live stream javaep created, each with its device current (an imported range's release waits
     * for them: javaep can have queued work on the range only there). A stream whose device lost its context has no
     * work left; one closed meanwhile was synchronized by its close, so its failure is not an error. Walks the
     * registry's array: no map, no boxing (a release runs per frame).
     */
    static void synchronizeLive() {
        for (LiveStreams.Live l : LIVE.live) {
            if (l.device().isLost()) {
                continue;
            }
            l.device().makeCurrent();
            try {
                l.device().driver().streamSynchronize(l.stream());
            } catch (dev.javaep.cuda.driver.CudaException e) {
                if (isLive(l.stream())) {
                    throw e;
                }
            }
        }
    }

    /** The device of a live stream this EP created; null for the null stream and streams of others (allocates nothing: the data transfer asks on every copy). */
    static CudaDevice deviceOrNull(long stream) {
        return stream == 0 ? null : LIVE.deviceOrNull(stream);
    }

    /**
     * The live streams as an array replaced on each create and destroy (rare) and scanned on each lookup (every copy
     * and free): a process has a handful of streams, and a map keyed by {@code Long} would box the handle per lookup.
     */
    private static final class LiveStreams {
        private record Live(long stream, CudaDevice device) {}

        private volatile Live[] live = new Live[0];

        synchronized void add(long stream, CudaDevice device) {
            Live[] grown = java.util.Arrays.copyOf(live, live.length + 1);
            grown[live.length] = new Live(stream, device);
            live = grown;
        }

        synchronized void remove(long stream) {
            live = java.util.Arrays.stream(live).filter(l -> l.stream != stream).toArray(Live[]::new);
        }

        CudaDevice deviceOrNull(long stream) {
            for (Live l : live) {
                if (l.stream == stream) {
                    return l.device;
                }
            }
            return null;
        }
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
        if (OrtGraphCapture.isRecording(stream)) {
            return; // ORT's graph capture records this Run: synchronising would invalidate it (OnRunEnd waits instead)
        }
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
