package dev.javaep.conformance.kit;

/**
 * One check's outcome.
 *
 * @param group the group the check belongs to ({@code registration}, {@code correctness}, ...)
 * @param id the check's stable id, {@code group.name}
 * @param reason why it failed or was skipped; for a pass, what was measured (may be empty)
 */
public record CheckResult(String group, String id, String description, Verdict verdict, String reason, long millis) {
    @Override
    public String toString() {
        return String.format("%-8s %-40s %s", verdict, id, reason);
    }
}
