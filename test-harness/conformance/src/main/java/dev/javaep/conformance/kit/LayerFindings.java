package dev.javaep.conformance.kit;

import dev.javaep.validation.Breadcrumbs;
import dev.javaep.validation.ReportFile;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * {@code --validate}: what the validation layer in front of the library saw while one group's child JVM ran
 * (docs/conformance.md). The child registers libjavaep with the layer wrapping the library; the layer appends its
 * findings to {@code <group>.validation} (the child marks each check there) and keeps the callbacks in flight in
 * {@code <group>.breadcrumbs}, both of which outlive a crash of the child.
 */
record LayerFindings(Path library, Path reports, Path breadcrumbs) {
    /** The section the child marks after its last check, before it unregisters the library. */
    static final String AFTER_THE_CHECKS = "(after the checks)";
    /** Kinds and callbacks listed in a check's reason; the rest are counted (all are in the file). */
    private static final int LISTED = 3;

    static LayerFindings of(KitOptions options, CheckGroup group) {
        Path dir = options.reportDir().toAbsolutePath();
        LayerFindings findings = new LayerFindings(options.library().toAbsolutePath(),
                dir.resolve(group.name() + ".validation"), dir.resolve(group.name() + ".breadcrumbs"));
        try {
            Files.deleteIfExists(findings.reports);
            Files.deleteIfExists(findings.breadcrumbs);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot clear the layer's files of group " + group.name(), e);
        }
        return findings;
    }

    /** The child's properties that put the layer in front of the library. */
    Map<String, String> childProperties() {
        return Map.of("javaep.validate.library", library.toString(), ReportFile.PROPERTY, reports.toString(),
                "javaep.validate.breadcrumbs", breadcrumbs.toString());
    }

    /**
     * {@code result} with what the layer saw during its check: a violation fails a check that passed (and is added to
     * a failed one's reason); a warning (a slow call, a compute state in two Computes at once) and an error status
     * the library returned are added to the reason without changing the verdict.
     */
    CheckResult judge(CheckResult result) {
        return judge(result, result.id(), "");
    }

    /**
     * {@code last} (the group's last check that ran) with what the layer saw after it, while the child unregistered
     * the library (a leak of objects at ReleaseEpFactory shows there); {@code last} when nothing.
     */
    CheckResult judgeEnd(CheckResult last) {
        return judge(last, AFTER_THE_CHECKS, "after the group's checks (at unregistration) ");
    }

    private CheckResult judge(CheckResult result, String section, String when) {
        List<ReportFile.Line> seen = ReportFile.read(reports).stream()
                .filter(line -> line.section().equals(section)).toList();
        if (seen.isEmpty()) {
            return result;
        }
        List<ReportFile.Line> violations = seen.stream().filter(ReportFile.Line::isViolation).toList();
        StringBuilder reason = new StringBuilder(result.reason());
        append(reason, when + "the validation layer saw %d violation(s): ", violations);
        append(reason, when + "the validation layer warned %d time(s): ",
                seen.stream().filter(ReportFile.Line::isWarning).toList());
        append(reason, when + "the library returned %d error status(es) through the layer: ",
                seen.stream().filter(line -> !line.isViolation() && !line.isWarning()).toList());
        Verdict verdict = result.verdict() == Verdict.PASS && !violations.isEmpty() ? Verdict.FAIL : result.verdict();
        return new CheckResult(result.group(), result.id(), result.description(), verdict, reason.toString(),
                result.millis());
    }

    /** Adds {@code lines} under {@code heading}: one entry per kind and callback, its first detail, how many times. */
    private static void append(StringBuilder reason, String heading, List<ReportFile.Line> lines) {
        if (lines.isEmpty()) {
            return;
        }
        Map<String, List<ReportFile.Line>> byCallback = lines.stream().collect(Collectors.groupingBy(
                line -> line.kind() + " in " + line.callback(), LinkedHashMap::new, Collectors.toList()));
        List<String> shown = byCallback.values().stream().limit(LISTED).map(same -> same.getFirst()
                + (same.size() == 1 ? "" : " (" + same.size() + " times)")).toList();
        reason.append(reason.isEmpty() ? "" : "; ").append(heading.formatted(lines.size())).append(String.join("; ", shown))
                .append(byCallback.size() <= LISTED ? "" : "; and " + (byCallback.size() - LISTED) + " more callbacks");
    }

    /** What the breadcrumbs say the child was running when it died: {@code ; crashed in X (thread N)}, or "". */
    String crashedIn() {
        try {
            List<String> running = Files.isRegularFile(breadcrumbs) ? Breadcrumbs.inFlight(breadcrumbs) : List.of();
            return running.isEmpty() ? "; the validation layer saw no callback of the library running"
                    : "; crashed in " + String.join(", ", running);
        } catch (IOException e) {
            return "; the breadcrumbs " + breadcrumbs + " cannot be read: " + e.getMessage();
        }
    }
}
