package dev.javaep.bridge;

import dev.javaep.ort.OrtSyncNotificationImplStruct;
import dev.javaep.spi.StreamNotification;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;

/** An {@code OrtSyncNotificationImpl} in front of one {@link StreamNotification}; ORT owns it and calls Release. */
final class NotificationBridge extends StructBridge {
    private static final CallbackStruct<OrtSyncNotificationImplStruct, NotificationBridge> STRUCT =
            new CallbackStruct<>(OrtSyncNotificationImplStruct.class, MethodHandles.lookup());

    private final StreamNotification notification;

    private NotificationBridge(StreamNotification notification, OrtRuntime runtime) {
        super(STRUCT, runtime);
        this.notification = notification;
        STRUCT.register(this);
    }

    static MemorySegment create(StreamNotification notification, OrtRuntime runtime) {
        return new NotificationBridge(notification, runtime).struct;
    }

    // ---- upcalls (behind UpcallGuard) ------------------------------------------------------------

    static void release(MemorySegment self) {
        STRUCT.releaseAndClose(self);
    }

    @Override
    void onRelease() {
        notification.close();
    }

    static MemorySegment activate(MemorySegment self) {
        long start = BridgeStatistics.start();
        STRUCT.get(self).notification.activate();
        BridgeStatistics.record(BridgeStatistics.Callback.NOTIFICATION, start);
        return MemorySegment.NULL;
    }

    static MemorySegment waitOnDevice(MemorySegment self, MemorySegment consumerStream) {
        NotificationBridge bridge = STRUCT.get(self);
        bridge.notification.waitOnDevice(bridge.runtime.api().syncStreamHandle(consumerStream));
        return MemorySegment.NULL;
    }

    static MemorySegment waitOnHost(MemorySegment self) {
        STRUCT.get(self).notification.waitOnHost();
        return MemorySegment.NULL;
    }
}
