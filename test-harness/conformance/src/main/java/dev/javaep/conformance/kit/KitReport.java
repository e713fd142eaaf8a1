package dev.javaep.conformance.kit;

import java.util.List;
import java.util.Map;

/**
 * A conformance run's outcome: every check's result in group order, the per-op table, and facts about the run.
 *
 * @param facts what the run ran against ({@code library}, {@code ep}, {@code ort-version}, {@code elapsed})
 */
public record KitReport(KitOptions options, List<CheckResult> results, List<OpTableRow> opTable, Map<String, String> facts) {
    public KitReport {
        results = List.copyOf(results);
        opTable = List.copyOf(opTable);
        facts = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(facts)); // in the order found
    }

    public long count(Verdict verdict) {
        return results.stream().filter(r -> r.verdict() == verdict).count();
    }

    /** Whether nothing failed, crashed or timed out. */
    public boolean passed() {
        return results.stream().noneMatch(r -> r.verdict().failed());
    }

    /** The usage error the run stopped at ({@code --device} out of range), if any. */
    public java.util.Optional<String> usageError() {
        return java.util.Optional.ofNullable(facts.get(KitContext.USAGE_ERROR));
    }

    /** 2 after a usage error, else 0 when {@link #passed()}, else 1: what {@code javaep conformance} exits with. */
    public int exitCode() {
        return usageError().isPresent() ? 2 : passed() ? 0 : 1;
    }

    /** The result of check {@code id}. */
    public CheckResult result(String id) {
        return results.stream().filter(r -> r.id().equals(id)).findFirst()
                .orElseThrow(() -> new IllegalArgumentException("no check " + id + " in this run"));
    }

    public String summaryLine() {
        return String.format("%d checks: %d passed, %d failed, %d crashed, %d timed out, %d skipped", results.size(),
                count(Verdict.PASS), count(Verdict.FAIL), count(Verdict.CRASH), count(Verdict.TIMEOUT), count(Verdict.SKIP));
    }
}
