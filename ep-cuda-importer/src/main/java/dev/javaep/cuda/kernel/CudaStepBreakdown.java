package dev.javaep.cuda.kernel;

import dev.javaep.spi.EpLog;
import dev.javaep.spi.StepProfiler;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Where a compiled group's GPU time goes, without ORT's profiler: with {@code -Djavaep.cuda.profileSteps=true} (or
 * {@code JAVAEP_CUDA_PROFILE_STEPS=true}, read when a group compiles) every Run of the group launches eagerly (no CUDA
 * graph) with a pair of CUDA events around each step ({@link CudaStepTimer}), and the device times are summed here, per
 * group, step kind ({@code cuDNN conv + epilogue pass}, {@code elementwise}, {@code pooling}, ...) and op type. The
 * events are read without waiting after each Run (those the device has passed) and, waiting, when a table is asked
 * for ({@link #table}) or a group closes (logged at info level). Off, a group never gets here.
 *
 * <p>Process-wide, like {@code CudaTransferCounters}: a benchmark {@link #reset}s, runs a session, and prints
 * {@link #table}. Each step's start event waits behind a short spin kernel ({@link CudaStepTimer#SPIN_MICROS}), so the
 * host has queued the whole step before the device reaches it: a pair measures the step's device time, not the device
 * idling while the host queues the step's launches (which an eager Run has and a replayed graph has not). The sum is
 * then the device time of the group's steps back to back, close to what a replayed graph runs.
 */
public final class CudaStepBreakdown {
    public static final String PROPERTY = "javaep.cuda.profileSteps";
    /** The kind of a step that ran on the host (shape arithmetic): its wall time, not device time. */
    public static final String HOST_KIND = "host step (wall time)";

    private CudaStepBreakdown() {}

    /** One (group, step kind, op type): how many steps ran and their summed device time. */
    public record Row(String group, String kind, String opType, long steps, long nanos) {}

    private record Key(String group, String kind, String opType) {}

    private record Pending(Key key, StepProfiler.DeviceTiming timing) {}

    private static final Map<Key, long[]> TOTALS = new HashMap<>();
    private static final Map<String, Long> RUNS = new HashMap<>();
    private static final ArrayDeque<Pending> PENDING = new ArrayDeque<>();

    /** Whether the property (or environment variable) asks for the breakdown. */
    public static boolean enabled() {
        String asked = System.getProperty(PROPERTY, System.getenv("JAVAEP_CUDA_PROFILE_STEPS"));
        return asked != null && (asked.equalsIgnoreCase("true") || asked.equalsIgnoreCase("on"));
    }

    /** Forgets every time recorded so far (what is still pending is read and dropped). */
    public static void reset() {
        List<Pending> dropped;
        synchronized (CudaStepBreakdown.class) {
            dropped = new ArrayList<>(PENDING);
            PENDING.clear();
            TOTALS.clear();
            RUNS.clear();
        }
        dropped.forEach(p -> p.timing().release());
    }

    /** Where one step of {@code group} notes its timing, filed under {@code kind}. */
    static StepProfiler step(String group, String kind) {
        return new StepProfiler() {
            @Override
            public void hostStep(String opType, String nodeName, long startNanos, long durationNanos) {
                synchronized (CudaStepBreakdown.class) {
                    add(new Key(group, HOST_KIND, opType), durationNanos);
                }
            }

            @Override
            public void deviceStep(String opType, String nodeName, long queuedNanos, long queueingNanos,
                                   DeviceTiming timing) {
                synchronized (CudaStepBreakdown.class) {
                    PENDING.add(new Pending(new Key(group, kind, opType), timing));
                }
            }
        };
    }

    /** A profiled Run of {@code group} was queued: counted, and the steps the device has passed are read. */
    static void runQueued(String group) {
        synchronized (CudaStepBreakdown.class) {
            RUNS.merge(group, 1L, Long::sum);
        }
        drain(false);
    }

    /** Every recorded (group, kind, op type), after reading the pending timings (waiting for the device). */
    public static List<Row> rows() {
        drain(true);
        synchronized (CudaStepBreakdown.class) {
            List<Row> rows = new ArrayList<>();
            TOTALS.forEach((k, v) -> rows.add(new Row(k.group(), k.kind(), k.opType(), v[0], v[1])));
            return rows;
        }
    }

    /** How many profiled Runs {@code group} queued. */
    public static long runs(String group) {
        synchronized (CudaStepBreakdown.class) {
            return RUNS.getOrDefault(group, 0L);
        }
    }

    /**
     * Markdown tables of the recorded time per Run, by step kind and by op type, largest first; {@code group} null: all
     * groups, each divided by its own Run count and summed (a model split into groups runs each once per Run).
     */
    public static String table(String group) {
        List<Row> rows = rows().stream().filter(r -> group == null || r.group().equals(group)).toList();
        if (rows.isEmpty()) {
            return "(no steps were profiled)\n";
        }
        Map<String, double[]> byKind = new LinkedHashMap<>();
        Map<String, double[]> byOp = new LinkedHashMap<>();
        double total = 0;
        long runs = 0;
        for (Row r : rows) {
            long groupRuns = Math.max(1, runs(r.group()));
            runs = Math.max(runs, groupRuns);
            double ms = r.nanos() / 1e6 / groupRuns;
            double steps = (double) r.steps() / groupRuns;
            accumulate(byKind, r.kind(), ms, steps);
            accumulate(byOp, r.opType(), ms, steps);
            if (!r.kind().equals(HOST_KIND)) {
                total += ms;
            }
        }
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "%d profiled Runs (eager, CUDA events around each step); GPU %.3f ms per Run%n%n",
                runs, total));
        appendTable(out, "step kind", byKind, total);
        out.append('\n');
        appendTable(out, "op type", byOp, total);
        return out.toString();
    }

    private static void accumulate(Map<String, double[]> into, String key, double ms, double steps) {
        double[] v = into.computeIfAbsent(key, k -> new double[2]);
        v[0] += ms;
        v[1] += steps;
    }

    private static void appendTable(StringBuilder out, String what, Map<String, double[]> values, double total) {
        out.append("| ").append(what).append(" | steps per Run | GPU ms per Run | share |\n|---|---:|---:|---:|\n");
        values.entrySet().stream().sorted(Comparator.comparingDouble((Map.Entry<String, double[]> e) -> -e.getValue()[0]))
                .forEach(e -> out.append(String.format(Locale.ROOT, "| %s | %.1f | %.3f | %s |%n", e.getKey(),
                        e.getValue()[1], e.getValue()[0], e.getKey().equals(HOST_KIND) || total <= 0 ? "host"
                                : String.format(Locale.ROOT, "%.1f%%", 100 * e.getValue()[0] / total))));
    }

    /** Logs {@code group}'s table (a group closing: its session ends), at info level. */
    static void logGroup(String group) {
        try {
            if (runs(group) > 0) {
                EpLog.info("javaep: where the GPU time of compiled node '" + group + "' went:\n" + table(group));
            }
        } catch (RuntimeException e) {
            EpLog.warning("javaep: the step breakdown of '" + group + "' could not be read", e);
        }
    }

    /**
     * Reads the pending timings the device has passed ({@code wait}: all of them, waiting), in queue order; under the
     * lock, so that no timing is read after another thread released it (profiling only: the wait blocks nothing else).
     */
    private static synchronized void drain(boolean wait) {
        for (Pending head; (head = PENDING.peek()) != null; ) {
            long nanos = head.timing().deviceNanos(wait);
            if (nanos == StepProfiler.DeviceTiming.NOT_YET) {
                return;
            }
            PENDING.poll();
            add(head.key(), nanos);
            head.timing().release();
        }
    }

    private static void add(Key key, long nanos) {
        long[] v = TOTALS.computeIfAbsent(key, k -> new long[2]);
        v[0]++;
        v[1] += nanos;
    }
}
