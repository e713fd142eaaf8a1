package dev.javaep.bridge;

import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.atomic.LongAdder;

/**
 * Counts of the callbacks ORT makes into javaep, and the time spent in them, for benchmarks
 * ("how much of a Run is the Java bridge"). Off unless the JVM starts with
 * {@code -Djavaep.bridge.statistics=true}; when off the checks fold away in the JIT.
 */
public final class BridgeStatistics {
    public static final boolean ENABLED = Boolean.getBoolean("javaep.bridge.statistics");

    /** The callbacks worth counting per Run. */
    public enum Callback { COMPUTE, ALLOCATE, FREE, COPY_TENSORS, STREAM, NOTIFICATION, SEMAPHORE, IMPORT }

    private static final Map<Callback, LongAdder> COUNTS = adders();
    private static final Map<Callback, LongAdder> NANOS = adders();

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

    static void record(Callback callback, long start) {
        if (ENABLED) {
            COUNTS.get(callback).increment();
            NANOS.get(callback).add(System.nanoTime() - start);
        }
    }

    /** One callback kind's totals since the last {@link #reset()}. */
    public record Totals(long calls, long nanos) {}

    public static Map<Callback, Totals> snapshot() {
        Map<Callback, Totals> result = new EnumMap<>(Callback.class);
        for (Callback c : Callback.values()) {
            result.put(c, new Totals(COUNTS.get(c).sum(), NANOS.get(c).sum()));
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
    }
}
