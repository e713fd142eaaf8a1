package dev.javaep.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
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
    public static long outsideHeapKib() {
        System.gc();
        long heapKib = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage().getCommitted() >> 10;
        return residentKib() - heapKib;
    }
}
