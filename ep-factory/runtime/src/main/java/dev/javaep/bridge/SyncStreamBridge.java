package dev.javaep.bridge;

import dev.javaep.ort.OrtSyncStreamImplStruct;
import dev.javaep.spi.DeviceStream;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;

/** An {@code OrtSyncStreamImpl} in front of one {@link DeviceStream}; ORT owns it and calls Release. */
final class SyncStreamBridge extends StructBridge {
    private static final CallbackStruct<OrtSyncStreamImplStruct, SyncStreamBridge> STRUCT =
            new CallbackStruct<>(OrtSyncStreamImplStruct.class, MethodHandles.lookup());

    private final DeviceStream stream;
    private final MemorySegment handle;

    private SyncStreamBridge(DeviceStream stream, OrtRuntime runtime) {
        super(STRUCT, runtime);
        this.stream = stream;
        this.handle = MemorySegment.ofAddress(stream.handle());
        STRUCT.register(this);
    }

    static MemorySegment create(DeviceStream stream, OrtRuntime runtime) {
        return new SyncStreamBridge(stream, runtime).struct;
    }

    /** The stream behind an {@code OrtSyncStreamImpl}, or null where javaep did not create it (no Optional: per frame). */
    static DeviceStream deviceStreamOrNull(MemorySegment impl) {
        SyncStreamBridge bridge = STRUCT.find(impl);
        return bridge == null ? null : bridge.stream;
    }

    // ---- upcalls (behind UpcallGuard) ------------------------------------------------------------

    static void release(MemorySegment self) {
        STRUCT.releaseAndClose(self);
    }

    @Override
    void onRelease() {
        stream.close();
    }

    static MemorySegment getHandle(MemorySegment self) {
        return STRUCT.get(self).handle;
    }

    static MemorySegment createNotification(MemorySegment self, MemorySegment notificationOut) {
        SyncStreamBridge bridge = STRUCT.get(self);
        MemorySegment out = notificationOut.reinterpret(ValueLayout.ADDRESS.byteSize());
        out.set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        out.set(ValueLayout.ADDRESS, 0, NotificationBridge.create(bridge.stream.createNotification(), bridge.runtime));
        return MemorySegment.NULL;
    }

    static MemorySegment flush(MemorySegment self) {
        STRUCT.get(self).stream.flush();
        return MemorySegment.NULL;
    }

    static MemorySegment onSessionRunEnd(MemorySegment self) {
        long start = BridgeStatistics.start();
        STRUCT.get(self).stream.onSessionRunEnd();
        BridgeStatistics.record(BridgeStatistics.Callback.STREAM, start);
        return MemorySegment.NULL;
    }
}
