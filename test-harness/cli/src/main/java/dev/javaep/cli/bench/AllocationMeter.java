package dev.javaep.cli.bench;

import java.lang.management.ManagementFactory;

/** The current thread's Java heap allocation so far ({@code com.sun.management.ThreadMXBean}). */
final class AllocationMeter {
    private static final com.sun.management.ThreadMXBean THREADS =
            (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();

    private AllocationMeter() {}

    static long threadAllocatedBytes() {
        return THREADS.getCurrentThreadAllocatedBytes();
    }
}
