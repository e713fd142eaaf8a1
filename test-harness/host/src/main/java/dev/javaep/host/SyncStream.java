package dev.javaep.host;


import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import java.lang.foreign.MemorySegment;
import java.util.Map;

/**
 * An {@code OrtSyncStream} an EP created for one of its devices ({@link OrtEnvironment#createSyncStream}):
 * the queue ORT orders copies ({@link OrtEnvironment#copyTensors}) and runs ({@link RunOptions#syncStream})
 * on. Owned; {@link #close()} releases it. Close it after every run and copy that uses it, and before the
 * EP library is unregistered.
 */
public final class SyncStream implements AutoCloseable {
    private final OrtApi api;
    private final EpDevice device;
    private MemorySegment stream;

    private SyncStream(OrtApi api, EpDevice device, MemorySegment stream) {
        this.api = api;
        this.device = device;
        this.stream = stream;
    }

    /** {@code CreateSyncStreamForEpDevice}; fails unless the device's EP is stream-aware. */
    static SyncStream create(OrtApi api, EpDevice device, Map<String, String> options) {
        MemorySegment kvps = options.isEmpty() ? MemorySegment.NULL : api.createKeyValuePairs(options);
        try {
            return new SyncStream(api, device, OrtCalls.pointerOut(api, OrtApiSlot.CreateSyncStreamForEpDevice, device.handle(), kvps));
        } finally {
            if (!options.isEmpty()) {
                api.releaseKeyValuePairs(kvps);
            }
        }
    }

    /** The device the stream belongs to. */
    public EpDevice device() {
        return device;
    }

    /** The {@code OrtSyncStream*} (for the interop API's semaphore calls, for instance). */
    public MemorySegment ortStream() {
        return OrtCalls.live(stream, "SyncStream");
    }

    /** The EP's native stream ({@code SyncStream_GetHandle}): a {@code CUstream} for a CUDA EP; 0 if it has none. */
    public long handle() {
        return api.table().call(OrtApiSlot.SyncStream_GetHandle, ortStream()).address();
    }

    @Override
    public void close() {
        if (stream != null) {
            api.table().callVoid(OrtApiSlot.ReleaseSyncStream, stream);
            stream = null;
        }
    }

    @Override
    public String toString() {
        return "SyncStream[" + device.epName() + (stream == null ? ", closed]" : ", handle=0x" + Long.toHexString(handle()) + "]");
    }
}
