package dev.javaep.bridge;

import dev.javaep.ort.OrtSyncNotificationImplStruct;
import dev.javaep.spi.StreamNotification;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.util.EnumSet;

/** An {@code OrtSyncNotificationImpl} in front of one {@link StreamNotification}; ORT owns it and calls Release. */
final class NotificationBridge {
    private static final HandleRegistry<NotificationBridge> REGISTRY = new HandleRegistry<>("OrtSyncNotificationImpl");
    private static final CallbackStruct<OrtSyncNotificationImplStruct> STRUCT =
            new CallbackStruct<>(OrtSyncNotificationImplStruct.class, MethodHandles.lookup());

    private final StreamNotification notification;
    private final OrtRuntime runtime;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment struct;

    private NotificationBridge(StreamNotification notification, OrtRuntime runtime) {
        this.notification = notification;
        this.runtime = runtime;
        this.struct = STRUCT.allocate(arena, runtime.apiVersion(), EnumSet.allOf(OrtSyncNotificationImplStruct.class));
        REGISTRY.register(struct, this);
    }

    static MemorySegment create(StreamNotification notification, OrtRuntime runtime) {
        return new NotificationBridge(notification, runtime).struct;
    }

    // ---- upcalls (behind UpcallGuard) ------------------------------------------------------------

    static void release(MemorySegment self) {
        NotificationBridge bridge = REGISTRY.release(self);
        if (bridge != null) {
            try (bridge.arena) {
                bridge.notification.close();
            }
        }
    }

    static MemorySegment activate(MemorySegment self) {
        long start = BridgeStatistics.start();
        REGISTRY.get(self).notification.activate();
        BridgeStatistics.record(BridgeStatistics.Callback.NOTIFICATION, start);
        return MemorySegment.NULL;
    }

    static MemorySegment waitOnDevice(MemorySegment self, MemorySegment consumerStream) {
        NotificationBridge bridge = REGISTRY.get(self);
        bridge.notification.waitOnDevice(bridge.runtime.api().syncStreamHandle(consumerStream));
        return MemorySegment.NULL;
    }

    static MemorySegment waitOnHost(MemorySegment self) {
        REGISTRY.get(self).notification.waitOnHost();
        return MemorySegment.NULL;
    }
}
