package dev.javaep.bridge;

import dev.javaep.spi.DeclineCode;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * What each {@code GetCapability} call decided: how many nodes the EP claimed, in how many compiled
 * groups and per-op kernel nodes, why the rest were declined (counted per {@link DeclineCode}), and
 * any failure that was contained to a node or a graph instead of failing the call. The bridge logs
 * each report; tests and the conformance kit read them here.
 */
public final class CapabilityReports {
    private static final int KEPT = 64;
    private static final Deque<Report> RECENT = new ArrayDeque<>();
    private static long containedFailures;

    private CapabilityReports() {}

    /**
     * One GetCapability call.
     *
     * @param failures contained failures: nodes javaep could not read, support() calls that threw, a
     *                 graph that could not be read at all. Declines are not failures.
     */
    public record Report(String ep, String graph, int nodes, int compiledGroups, int compiledNodes, int kernelNodes,
                         Map<DeclineCode, Integer> declines, List<String> failures) {
        public Report {
            declines = Map.copyOf(declines);
            failures = List.copyOf(failures);
        }

        public int claimedNodes() {
            return compiledNodes + kernelNodes;
        }

        /** One line for the log. */
        public String summary() {
            return ep + " claims " + claimedNodes() + " of " + nodes + " nodes of graph '" + graph + "': " + compiledNodes
                    + " in " + compiledGroups + " compiled group(s), " + kernelNodes + " through per-op kernels"
                    + (declines.isEmpty() ? "" : "; declined " + new EnumMap<>(declines))
                    + (failures.isEmpty() ? "" : "; " + failures.size() + " contained failure(s)");
        }
    }

    static synchronized void add(Report report) {
        if (RECENT.size() == KEPT) {
            RECENT.removeFirst();
        }
        RECENT.addLast(report);
        containedFailures += report.failures().size();
    }

    /** The last reports, oldest first. */
    public static synchronized List<Report> recent() {
        return new ArrayList<>(RECENT);
    }

    /** Contained failures since the process started (or the last {@link #clear()}). */
    public static synchronized long containedFailures() {
        return containedFailures;
    }

    public static synchronized void clear() {
        RECENT.clear();
        containedFailures = 0;
    }
}
