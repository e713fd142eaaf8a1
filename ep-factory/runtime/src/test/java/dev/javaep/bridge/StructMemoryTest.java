package dev.javaep.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.bridge.StructBridge.StructMemory;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.DeviceAllocator;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * How a bridge's struct memory goes at release (issue 13): per-session bridges close their shared arena at once;
 * per-frame ones (an import's handle and tensor deleter) leave it to the GC, so that their release is no handshake of
 * every Java thread, and still work until released. Checked on the allocator bridge, without ORT.
 */
class StructMemoryTest {
    /** A runtime whose API table is never called: creating and releasing an allocator bridge makes no ORT call. */
    private static final OrtRuntime RUNTIME = new OrtRuntime(
            new OrtApi(Arena.ofAuto().allocate(OrtApiSlot.tableLength() * ValueLayout.ADDRESS.byteSize()), 24),
            null, "1.24.0", MemorySegment.NULL);

    /** Counts frees and closes: what ORT's Free and the release reach. */
    private static final class CountingAllocator implements DeviceAllocator {
        final AtomicInteger frees = new AtomicInteger();
        final AtomicInteger closes = new AtomicInteger();

        @Override
        public long allocate(long bytes) {
            throw new UnsupportedOperationException();
        }

        @Override
        public void free(long address) {
            frees.incrementAndGet();
        }

        @Override
        public void close() {
            closes.incrementAndGet();
        }
    }

    @Test
    void aSharedStructIsFreedAtItsRelease() {
        CountingAllocator allocator = new CountingAllocator();
        MemorySegment struct = AllocatorBridge.create(allocator, MemorySegment.NULL, RUNTIME, StructMemory.SHARED);
        assertTrue(struct.scope().isAlive());
        AllocatorBridge.release(struct);
        assertFalse(struct.scope().isAlive(), "the shared arena is closed by the release");
        assertEquals(1, allocator.closes.get());
    }

    @Test
    void aCollectedStructWorksUntilReleasedAndItsReleaseClosesNoArena() {
        CountingAllocator allocator = new CountingAllocator();
        MemorySegment struct = AllocatorBridge.create(allocator, MemorySegment.NULL, RUNTIME, StructMemory.COLLECTED);
        assertEquals(24, struct.get(ValueLayout.JAVA_INT, 0), "version");
        AllocatorBridge.free(struct, MemorySegment.ofAddress(0x1000)); // what ORT's Free upcall does
        assertEquals(1, allocator.frees.get());
        // An automatic arena cannot be closed: a release that tried would throw UnsupportedOperationException here.
        AllocatorBridge.release(struct);
        assertEquals(1, allocator.closes.get());
        assertTrue(struct.scope().isAlive(), "freed by the GC once unreachable, not by a handshake at the release");
        assertThrows(OrtException.class, () -> AllocatorBridge.free(struct, MemorySegment.ofAddress(0x1000)),
                "unregistered: ORT's callbacks no longer reach it");
    }
}
