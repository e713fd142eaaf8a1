package dev.javaep.validation;

import dev.javaep.spi.EpLog;
import dev.javaep.spi.EpLogger;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * The violations the layer found in this process: a counter per {@link Violation}, and the most recent reports
 * (what a test or a vendor's harness reads). Each is logged through {@link EpLog} with the callback, what it was
 * given and the Java-side stack; the first {@value #LOGGED_WITH_STACK} of a kind carry the stack, later ones one line.
 */
public final class Violations {
    /** One violation: the callback as {@code Struct::Slot}, and what was wrong. */
    public record Report(Violation kind, String callback, String detail) {
        @Override
        public String toString() {
            return "javaep validation: " + kind + " in " + callback + ": " + detail;
        }
    }

    private static final int LOGGED_WITH_STACK = 20;
    private static final int KEPT = 1000;
    /** Frames of the stack in a report: the layer's own and the Java code above the native call, if any. */
    private static final int STACK_FRAMES = 10;
    private static final AtomicLongArray COUNTS = new AtomicLongArray(Violation.values().length);
    private static final List<Report> RECENT = new ArrayList<>();

    private Violations() {}

    static void report(Violation kind, String callback, String detail) {
        Report report = new Report(kind, callback, detail);
        long seen = COUNTS.getAndIncrement(kind.ordinal());
        synchronized (RECENT) {
            if (RECENT.size() == KEPT) {
                RECENT.removeFirst();
            }
            RECENT.add(report);
        }
        Settings settings = Settings.current;
        if (settings != null && settings.reports() != null) {
            settings.reports().add(kind.name(), callback, detail);
        }
        EpLogger.Level level = kind.isWarning() ? EpLogger.Level.WARNING : EpLogger.Level.ERROR;
        EpLog.log(level, seen < LOGGED_WITH_STACK ? report + javaStack() : report.toString());
    }

    /** The calling thread's stack below the layer's reporting, one frame per line. */
    private static String javaStack() {
        StringBuilder stack = new StringBuilder("\n  Java-side stack:");
        StackWalker.getInstance().walk(frames -> frames.skip(2).limit(STACK_FRAMES).toList())
                .forEach(frame -> stack.append("\n    at ").append(frame));
        return stack.toString();
    }

    /** How many of each kind were found so far (kinds with none left out). */
    public static Map<Violation, Long> counts() {
        Map<Violation, Long> counts = new EnumMap<>(Violation.class);
        for (Violation kind : Violation.values()) {
            long count = COUNTS.get(kind.ordinal());
            if (count > 0) {
                counts.put(kind, count);
            }
        }
        return counts;
    }

    public static long total() {
        long total = 0;
        for (int i = 0; i < COUNTS.length(); i++) {
            total += COUNTS.get(i);
        }
        return total;
    }

    /** The most recent reports, oldest first (at most {@value #KEPT}). */
    public static List<Report> recent() {
        synchronized (RECENT) {
            return List.copyOf(RECENT);
        }
    }

    /** Forgets all counts and reports (between tests). */
    public static void clear() {
        for (int i = 0; i < COUNTS.length(); i++) {
            COUNTS.set(i, 0);
        }
        synchronized (RECENT) {
            RECENT.clear();
        }
    }
}
