package dev.javaep.bridge;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts of the callbacks ORT makes into javaep, the time spent in them and the Java heap they allocate,
 * for benchmarks ("how much of a Run is the Java bridge"). Off unless the JVM starts with
 * {@code -Djavaep.bridge.statistics=true}; when off the checks fold away in the JIT.
 */
public final class BridgeStatistics {
    public static final boolean ENABLED = Boolean.getBoolean("javaep.bridge.statistics");

    /**
     * The callbacks worth counting per Run. {@code IMPORTER} is the part of an {@code IMPORT} spent in the EP's own
     * {@code ExternalResourceImporter.importMemory}: the rest of the upcall is the bridge's.
     */
    public enum Callback { COMPUTE, ALLOCATE, FREE, COPY_TENSORS, STREAM, NOTIFICATION, SEMAPHORE, IMPORT, IMPORTER, CREATE_TENSOR }

    private static final Map<Callback, LongAdder> COUNTS = adders();
    private static final Map<Callback, LongAdder> NANOS = adders();
    private static final Map<Callback, LongAdder> BYTES = adders();

    private BridgeStatistics() {}

    private static Map<Callback, LongAdder> adders() {
        Map<Callback, LongAdder> map = new EnumMap<>(Callback.class);
        for (Callback c : Callback.values()) {
            map.put(c, new LongAdder());
        }
        return map;
    }

    static long start() {
        return ENABLED ? System.nanoTime() : 0L;
    }

    /** The current thread's allocated heap bytes when statistics are on (pair with {@link #record(Callback, long, long)}). */
    static long startAllocation() {
        return ENABLED ? Allocation.current() : 0L;
    }

    static void record(Callback callback, long start) {
        if (ENABLED) {
            COUNTS.get(callback).increment();
            NANOS.get(callback).add(System.nanoTime() - start);
        }
    }

    /** As {@link #record(Callback, long)}, also counting the heap the callback allocated since {@code allocationStart}. */
    static void record(Callback callback, long start, long allocationStart) {
        if (ENABLED) {
            long allocated = Allocation.current() - allocationStart;
            COUNTS.get(callback).increment();
            NANOS.get(callback).add(System.nanoTime() - start);
            BYTES.get(callback).add(allocated);
        }
    }

    /**
     * One callback kind's totals since the last {@link #reset()}; {@code allocatedBytes} is counted for Compute only
     * (and is 0 where the JVM cannot measure a thread's allocation).
     */
    public record Totals(long calls, long nanos, long allocatedBytes) {}

    public static Map<Callback, Totals> snapshot() {
        Map<Callback, Totals> result = new EnumMap<>(Callback.class);
        for (Callback c : Callback.values()) {
            result.put(c, new Totals(COUNTS.get(c).sum(), NANOS.get(c).sum(), BYTES.get(c).sum()));
        }
        return result;
    }

    private static final Map<String, java.util.function.IntSupplier> LIVE = new java.util.concurrent.ConcurrentSkipListMap<>();

    static void track(String kind, java.util.function.IntSupplier live) {
        LIVE.put(kind, live);
    }

    /**
     * How many objects of each kind javaep handed ORT and ORT has not released yet (always counted):
     * after sessions close, only the factories and their allocators should remain.
     */
    public static Map<String, Integer> liveObjects() {
        Map<String, Integer> result = new java.util.TreeMap<>();
        LIVE.forEach((kind, count) -> result.put(kind, count.getAsInt()));
        return result;
    }

    public static void reset() {
        COUNTS.values().forEach(LongAdder::reset);
        NANOS.values().forEach(LongAdder::reset);
        BYTES.values().forEach(LongAdder::reset);
    }

    /**
     * The thread's allocation counter ({@code com.sun.management.ThreadMXBean}, module jdk.management), loaded only
     * when statistics are on: a runtime without that module counts 0.
     */
    private static final class Allocation {
        private static final com.sun.management.ThreadMXBean THREADS = threads();

        private static com.sun.management.ThreadMXBean threads() {
            try {
                return java.lang.management.ManagementFactory.getThreadMXBean() instanceof com.sun.management.ThreadMXBean t
                        ? t : null;
            } catch (LinkageError e) {
                return null;
            }
        }

        static long current() {
            return THREADS == null ? 0L : THREADS.getCurrentThreadAllocatedBytes();
        }
    }
}
