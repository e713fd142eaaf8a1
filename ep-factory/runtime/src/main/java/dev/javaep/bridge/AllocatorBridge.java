package dev.javaep.bridge;

import dev.javaep.ort.OrtAllocatorStruct;
import dev.javaep.spi.DeviceAllocator;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandles;
import java.util.EnumSet;

/** An {@code OrtAllocator} in front of one {@link DeviceAllocator}. */
final class AllocatorBridge extends StructBridge {
    // GetStats and Shrink stay NULL: ORT treats both as optional.
    private static final EnumSet<OrtAllocatorStruct> IMPLEMENTED = EnumSet.of(OrtAllocatorStruct.Alloc,
            OrtAllocatorStruct.Free, OrtAllocatorStruct.Info, OrtAllocatorStruct.Reserve, OrtAllocatorStruct.AllocOnStream);
    private static final CallbackStruct<OrtAllocatorStruct, AllocatorBridge> STRUCT =
            new CallbackStruct<>(OrtAllocatorStruct.class, MethodHandles.lookup(), IMPLEMENTED);

    private final DeviceAllocator allocator;
    private final MemorySegment memoryInfo;

    private AllocatorBridge(DeviceAllocator allocator, MemorySegment memoryInfo, OrtRuntime runtime, StructMemory memory) {
        super(STRUCT, runtime, memory);
        this.allocator = allocator;
        this.memoryInfo = memoryInfo;
        STRUCT.register(this);
    }

    /** @param memoryInfo the memory info registered for the space; must outlive the allocator */
    static MemorySegment create(DeviceAllocator allocator, MemorySegment memoryInfo, OrtRuntime runtime) {
        return create(allocator, memoryInfo, runtime, StructMemory.SHARED);
    }

    /** @param memory {@code COLLECTED} for an allocator made per frame (an imported buffer's tensor deleter) */
    static MemorySegment create(DeviceAllocator allocator, MemorySegment memoryInfo, OrtRuntime runtime, StructMemory memory) {
        return new AllocatorBridge(allocator, memoryInfo, runtime, memory).struct;
    }

    static void release(MemorySegment pointer) {
        AllocatorBridge bridge = STRUCT.removeKnown(pointer);
        try {
            bridge.allocator.close();
        } finally {
            bridge.freeStruct();
        }
    }

    // ---- upcalls (behind UpcallGuard; a failed allocation returns NULL, which ORT reports as out of memory) ----

    static MemorySegment alloc(MemorySegment self, long size) {
        long start = BridgeStatistics.start();
        MemorySegment memory = MemorySegment.ofAddress(STRUCT.get(self).allocator.allocate(size));
        BridgeStatistics.record(BridgeStatistics.Callback.ALLOCATE, start);
        return memory;
    }

    static void free(MemorySegment self, MemorySegment pointer) {
        long start = BridgeStatistics.start();
        if (!pointer.equals(MemorySegment.NULL)) {
            STRUCT.get(self).allocator.free(pointer.address());
        }
        BridgeStatistics.record(BridgeStatistics.Callback.FREE, start);
    }

    static MemorySegment info(MemorySegment self) {
        return STRUCT.get(self).memoryInfo;
    }

    static MemorySegment reserve(MemorySegment self, long size) {
        return MemorySegment.ofAddress(STRUCT.get(self).allocator.reserve(size));
    }

    static MemorySegment allocOnStream(MemorySegment self, long size, MemorySegment stream) {
        long start = BridgeStatistics.start();
        AllocatorBridge bridge = STRUCT.get(self);
        MemorySegment memory = MemorySegment.ofAddress(
                bridge.allocator.allocate(size, bridge.runtime.api().syncStreamHandle(stream)));
        BridgeStatistics.record(BridgeStatistics.Callback.ALLOCATE, start);
        return memory;
    }
}
