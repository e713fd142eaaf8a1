package dev.javaep.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SegmentAllocator;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;

/** This process's memory as the kernel counts it, for leak checks (Linux). */
public final class ProcessMemory {
    private ProcessMemory() {}

    /** Resident set size ({@code VmRSS} of /proc/self/status) in KiB. */
    public static long residentKib() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }

    /**
     * Host memory outside the Java heap (RSS minus the heap's committed size, after a GC): what a
     * native leak in ORT, the bridge or a driver would grow. The heap itself grows and shrinks with
     * the collector, so plain RSS cannot tell a leak from a bigger heap.
     */
    /**
     * Bytes in use in glibc's malloc ({@code mallinfo2}: {@code uordblks + hblkhd}): where ORT, the CUDA
     * driver and javaep's native allocations live, without the Java heap, the GC's side tables or the
     * code cache, which grow with the heap and blur {@link #outsideHeapKib()} in a long test JVM.
     */
    public static long mallocInUseBytes() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = (MemorySegment) MALLINFO2.invokeExact((SegmentAllocator) arena);
            return info.get(ValueLayout.JAVA_LONG, 7 * 8) + info.get(ValueLayout.JAVA_LONG, 4 * 8);
        } catch (Throwable t) {
            throw new IllegalStateException("mallinfo2", t);
        }
    }

    /** {@code struct mallinfo2 mallinfo2(void)}: ten size_t fields, returned by value. */
    private static final MethodHandle MALLINFO2 = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().findOrThrow("mallinfo2"),
            FunctionDescriptor.of(MemoryLayout.structLayout(MemoryLayout.sequenceLayout(10, ValueLayout.JAVA_LONG))));

    public static long outsideHeapKib() {
        System.gc();
        long heapKib = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted() >> 10;
        return residentKib() - heapKib;
    }
}
