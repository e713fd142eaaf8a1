package dev.javaep.bridge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.ort.OrtInteropLayouts;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalSemaphoreType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The descriptor findings the bridge refuses and the validation layer reports: one text for both. */
class InteropDescriptorsTest {
    private static final Arena ARENA = Arena.ofAuto();
    private static final int HOST = ExternalMemoryType.HOST_ALLOCATION.ortValue();
    private static final InteropDescriptors.Importable<ExternalMemoryType> ALL_MEMORY =
            new InteropDescriptors.Importable<>("TestEp", type -> true, List.of(ExternalMemoryType.values()));

    @Test
    void aSaneMemoryDescriptorHasNoProblem() {
        assertNull(InteropDescriptors.memoryProblem(memory(OrtInteropLayouts.FIRST_VERSION, HOST, 4096, 4095)));
        assertNull(InteropDescriptors.semaphoreProblem(semaphore(ExternalSemaphoreType.VK_TIMELINE_SEMAPHORE_OPAQUE_FD.ortValue())));
    }

    @Test
    void eachMemoryProblemIsNamedByItsField() {
        assertEquals("the OrtExternalMemoryDescriptor pointer is NULL", InteropDescriptors.memoryProblem(MemorySegment.NULL));
        assertProblem("OrtExternalMemoryDescriptor.version is 0", memory(0, HOST, 64, 0));
        assertProblem("version 31 is newer than javaep knows", memory(31, HOST, 64, 0));
        assertProblem("handle_type 99 is not an OrtExternalMemoryHandleType", memory(24, 99, 64, 0));
        assertProblem("size_bytes is 0", memory(24, HOST, 0, 0));
        assertProblem("is out of range (a negative value cast to size_t?)", memory(24, HOST, -64, 0));
        assertProblem("offset_bytes 64 is not below size_bytes 64", memory(24, HOST, 64, 64));
        assertTrue(InteropDescriptors.semaphoreProblem(semaphore(7)).contains(
                "OrtExternalSemaphoreDescriptor.type 7 is not an OrtExternalSemaphoreType"));
    }

    @Test
    void theBridgeRefusesAProblemInTheSameWords() {
        MemorySegment sizeZero = memory(24, HOST, 0, 0);
        var refused = assertThrows(IllegalArgumentException.class, () -> InteropDescriptors.memory(sizeZero, ALL_MEMORY));
        assertEquals("javaep: " + InteropDescriptors.memoryProblem(sizeZero), refused.getMessage());
    }

    private static void assertProblem(String expected, MemorySegment descriptor) {
        String problem = InteropDescriptors.memoryProblem(descriptor);
        assertTrue(problem != null && problem.contains(expected), expected + " in " + problem);
    }

    private static MemorySegment memory(int version, int type, long size, long offset) {
        MemorySegment d = ARENA.allocate(OrtInteropLayouts.MEMORY_DESCRIPTOR);
        d.set(ValueLayout.JAVA_INT, OrtInteropLayouts.offset(OrtInteropLayouts.MEMORY_DESCRIPTOR, "version"), version);
        d.set(ValueLayout.JAVA_INT, OrtInteropLayouts.offset(OrtInteropLayouts.MEMORY_DESCRIPTOR, "handle_type"), type);
        d.set(ValueLayout.ADDRESS, OrtInteropLayouts.offset(OrtInteropLayouts.MEMORY_DESCRIPTOR, "native_handle"),
                MemorySegment.ofAddress(0x1000)); // a host pointer: only the bridge reads it, after the shared checks
        d.set(ValueLayout.JAVA_LONG, OrtInteropLayouts.offset(OrtInteropLayouts.MEMORY_DESCRIPTOR, "size_bytes"), size);
        d.set(ValueLayout.JAVA_LONG, OrtInteropLayouts.offset(OrtInteropLayouts.MEMORY_DESCRIPTOR, "offset_bytes"), offset);
        return d;
    }

    private static MemorySegment semaphore(int type) {
        MemorySegment d = ARENA.allocate(OrtInteropLayouts.SEMAPHORE_DESCRIPTOR);
        d.set(ValueLayout.JAVA_INT, OrtInteropLayouts.offset(OrtInteropLayouts.SEMAPHORE_DESCRIPTOR, "version"), 24);
        d.set(ValueLayout.JAVA_INT, OrtInteropLayouts.offset(OrtInteropLayouts.SEMAPHORE_DESCRIPTOR, "type"), type);
        return d;
    }
}
