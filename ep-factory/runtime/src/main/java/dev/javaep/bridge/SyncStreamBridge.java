package dev.javaep.bridge;

import dev.javaep.ort.OrtSyncStreamImplStruct;
import dev.javaep.spi.DeviceStream;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.util.EnumSet;
import java.util.Optional;

/** An {@code OrtSyncStreamImpl} in front of one {@link DeviceStream}; ORT owns it and calls Release. */
final class SyncStreamBridge {
    private static final HandleRegistry<SyncStreamBridge> REGISTRY = new HandleRegistry<>("OrtSyncStreamImpl");
    private static final CallbackStruct<OrtSyncStreamImplStruct> STRUCT =
            new CallbackStruct<>(OrtSyncStreamImplStruct.class, MethodHandles.lookup());

    private final DeviceStream stream;
    private final OrtRuntime runtime;
    private final MemorySegment handle;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment struct;

    private SyncStreamBridge(DeviceStream stream, OrtRuntime runtime) {
        this.stream = stream;
        this.runtime = runtime;
        this.handle = MemorySegment.ofAddress(stream.handle());
        this.struct = STRUCT.allocate(arena, runtime.apiVersion(), EnumSet.allOf(OrtSyncStreamImplStruct.class));
        REGISTRY.register(struct, this);
    }

    static MemorySegment create(DeviceStream stream, OrtRuntime runtime) {
        return new SyncStreamBridge(stream, runtime).struct;
    }

    /** The stream behind an {@code OrtSyncStreamImpl}, if javaep created it. */
    static Optional<DeviceStream> deviceStream(MemorySegment impl) {
        return Optional.ofNullable(REGISTRY.find(impl)).map(bridge -> bridge.stream);
    }

    // ---- upcalls (behind UpcallGuard) ------------------------------------------------------------

    static void release(MemorySegment self) {
        SyncStreamBridge bridge = REGISTRY.release(self);
        if (bridge != null) {
            try (bridge.arena) {
                bridge.stream.close();
            }
        }
    }

    static MemorySegment getHandle(MemorySegment self) {
        return REGISTRY.get(self).handle;
    }

    static MemorySegment createNotification(MemorySegment self, MemorySegment notificationOut) {
        SyncStreamBridge bridge = REGISTRY.get(self);
        MemorySegment out = notificationOut.reinterpret(ValueLayout.ADDRESS.byteSize());
        out.set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        out.set(ValueLayout.ADDRESS, 0, NotificationBridge.create(bridge.stream.createNotification(), bridge.runtime));
        return MemorySegment.NULL;
    }

    static MemorySegment flush(MemorySegment self) {
        REGISTRY.get(self).stream.flush();
        return MemorySegment.NULL;
    }

    static MemorySegment onSessionRunEnd(MemorySegment self) {
        long start = BridgeStatistics.start();
        REGISTRY.get(self).stream.onSessionRunEnd();
        BridgeStatistics.record(BridgeStatistics.Callback.STREAM, start);
        return MemorySegment.NULL;
    }
}
