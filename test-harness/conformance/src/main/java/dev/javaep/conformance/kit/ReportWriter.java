package dev.javaep.conformance.kit;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A run's report in the forms CI and people read: a console summary, JUnit XML (one test suite per group, one test
 * case per check: fail → {@code <failure>}, crash and timeout → {@code <error>}, skip → {@code <skipped>}), Markdown and
 * a self-contained HTML page (no scripts, no external files) with the per-op table.
 */
public final class ReportWriter {
    public static final String JUNIT_XML = "TEST-javaep-conformance.xml";
    public static final String MARKDOWN = "report.md";
    public static final String HTML = "report.html";

    private ReportWriter() {}

    /** Writes the JUnit XML, Markdown and HTML reports into the run's report folder; returns their paths. */
    public static List<Path> writeAll(KitReport report) {
        Path dir = report.options().reportDir();
        try {
            Files.createDirectories(dir);
            Path xml = Files.writeString(dir.resolve(JUNIT_XML), junitXml(report), StandardCharsets.UTF_8);
            Path md = Files.writeString(dir.resolve(MARKDOWN), markdown(report), StandardCharsets.UTF_8);
            Path html = Files.writeString(dir.resolve(HTML), html(report), StandardCharsets.UTF_8);
            return List.of(xml, md, html);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot write the report into " + dir, e);
        }
    }

    /** One line per check, then the totals. */
    public static String console(KitReport report) {
        StringBuilder out = new StringBuilder();
        for (CheckResult r : report.results()) {
            out.append(String.format("%-8s %-38s %s%n", r.verdict(), r.id(), oneLine(r.reason(), 200)));
        }
        out.append(report.facts().getOrDefault("ep", "")).append(" on ONNX Runtime ")
                .append(report.facts().getOrDefault("ort-version", "?")).append(": ").append(report.summaryLine())
                .append(" (").append(report.facts().getOrDefault("elapsed", "?")).append(")\n");
        report.usageError().ifPresent(error -> out.append("usage error, the run stopped: ").append(error).append('\n'));
        return out.toString();
    }

    public static String junitXml(KitReport report) {
        Map<String, List<CheckResult>> byGroup = byGroup(report);
        StringBuilder xml = new StringBuilder("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
        xml.append(String.format("<testsuites name=\"javaep-conformance\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\">%n",
                report.results().size(), report.count(Verdict.FAIL), report.count(Verdict.CRASH) + report.count(Verdict.TIMEOUT),
                report.count(Verdict.SKIP)));
        for (var group : byGroup.entrySet()) {
            List<CheckResult> results = group.getValue();
            long failures = results.stream().filter(r -> r.verdict() == Verdict.FAIL).count();
            long errors = results.stream().filter(r -> r.verdict() == Verdict.CRASH || r.verdict() == Verdict.TIMEOUT).count();
            long skipped = results.stream().filter(r -> r.verdict() == Verdict.SKIP).count();
            double seconds = results.stream().mapToLong(CheckResult::millis).sum() / 1000.0;
            xml.append(String.format("  <testsuite name=\"conformance.%s\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">%n",
                    xmlEscape(group.getKey()), results.size(), failures, errors, skipped, seconds));
            for (CheckResult r : results) {
                xml.append(String.format("    <testcase classname=\"conformance.%s\" name=\"%s\" time=\"%.3f\"",
                        xmlEscape(r.group()), xmlEscape(r.id()), r.millis() / 1000.0));
                String message = xmlEscape(oneLine(r.reason(), 1000));
                switch (r.verdict()) {
                    case PASS -> xml.append(">\n      <system-out>").append(xmlEscape(r.reason())).append("</system-out>\n    </testcase>\n");
                    case FAIL -> xml.append(">\n      <failure message=\"").append(message).append("\">")
                            .append(xmlEscape(r.reason())).append("</failure>\n    </testcase>\n");
                    case CRASH, TIMEOUT -> xml.append(">\n      <error type=\"").append(r.verdict().name().toLowerCase())
                            .append("\" message=\"").append(message).append("\">").append(xmlEscape(r.reason()))
                            .append("</error>\n    </testcase>\n");
                    case SKIP -> xml.append(">\n      <skipped message=\"").append(message).append("\"/>\n    </testcase>\n");
                }
            }
            xml.append("  </testsuite>\n");
        }
        return xml.append("</testsuites>\n").toString();
    }

    public static String markdown(KitReport report) {
        StringBuilder md = new StringBuilder("# javaep conformance report\n\n");
        report.facts().forEach((k, v) -> md.append("- ").append(k).append(": `").append(v).append("`\n"));
        md.append("- verdict: **").append(report.passed() ? "PASS" : "FAIL").append("**: ").append(report.summaryLine())
                .append("\n");
        for (var group : byGroup(report).entrySet()) {
            md.append("\n## ").append(group.getKey()).append("\n\n| check | verdict | what it checks | details |\n|---|---|---|---|\n");
            for (CheckResult r : group.getValue()) {
                md.append("| `").append(r.id()).append("` | ").append(r.verdict().failed() ? "**" + r.verdict() + "**" : r.verdict())
                        .append(" | ").append(cell(r.description())).append(" | ").append(cell(oneLine(r.reason(), 600)))
                        .append(" |\n");
            }
        }
        if (!report.opTable().isEmpty()) {
            md.append("\n## Per-op node tests\n\n| op | node tests | EP passes | ORT CPU passes | behind ORT CPU (why) |\n")
                    .append("|---|---:|---:|---:|---|\n");
            for (OpTableRow row : report.opTable()) {
                md.append("| ").append(row.op()).append(" | ").append(row.tests()).append(" | ").append(row.epPassed())
                        .append(" | ").append(row.ortCpuPassed()).append(" | ").append(cell(oneLine(row.behind(), 400)))
                        .append(" |\n");
            }
        }
        return md.toString();
    }

    public static String html(KitReport report) {
        StringBuilder html = new StringBuilder("""
                <!DOCTYPE html>
                <html lang="en"><head><meta charset="utf-8"><title>javaep conformance report</title>
                <style>
                body{font-family:system-ui,sans-serif;margin:2em;max-width:80em}
                table{border-collapse:collapse;margin:1em 0}td,th{border:1px solid #ccc;padding:.3em .6em;text-align:left;vertical-align:top}
                th{background:#f4f4f4}.PASS{color:#186a1e}.FAIL,.CRASH,.TIMEOUT{color:#b00020;font-weight:bold}.SKIP{color:#777}
                code{font-size:90%}td.n{text-align:right}
                </style></head><body>
                <h1>javaep conformance report</h1>
                """);
        html.append("<p class=\"").append(report.passed() ? "PASS" : "FAIL").append("\">")
                .append(report.passed() ? "PASS" : "FAIL").append(": ").append(htmlEscape(report.summaryLine())).append("</p>\n<ul>");
        report.facts().forEach((k, v) -> html.append("<li>").append(htmlEscape(k)).append(": <code>").append(htmlEscape(v))
                .append("</code></li>"));
        html.append("</ul>\n");
        for (var group : byGroup(report).entrySet()) {
            html.append("<h2>").append(htmlEscape(group.getKey())).append("</h2>\n<table><tr><th>check</th><th>verdict</th>")
                    .append("<th>what it checks</th><th>details</th><th>ms</th></tr>\n");
            for (CheckResult r : group.getValue()) {
                html.append("<tr><td><code>").append(htmlEscape(r.id())).append("</code></td><td class=\"")
                        .append(r.verdict()).append("\">").append(r.verdict()).append("</td><td>")
                        .append(htmlEscape(r.description())).append("</td><td>").append(htmlEscape(r.reason()))
                        .append("</td><td class=\"n\">").append(r.millis()).append("</td></tr>\n");
            }
            html.append("</table>\n");
        }
        if (!report.opTable().isEmpty()) {
            html.append("<h2>Per-op node tests</h2>\n<table><tr><th>op</th><th>node tests</th><th>EP passes</th>")
                    .append("<th>ORT CPU passes</th><th>behind ORT CPU (why)</th></tr>\n");
            for (OpTableRow row : report.opTable()) {
                html.append("<tr><td>").append(htmlEscape(row.op())).append("</td><td class=\"n\">").append(row.tests())
                        .append("</td><td class=\"n\">").append(row.epPassed()).append("</td><td class=\"n\">")
                        .append(row.ortCpuPassed()).append("</td><td>").append(htmlEscape(row.behind())).append("</td></tr>\n");
            }
            html.append("</table>\n");
        }
        return html.append("</body></html>\n").toString();
    }

    private static Map<String, List<CheckResult>> byGroup(KitReport report) {
        Map<String, List<CheckResult>> groups = new LinkedHashMap<>();
        report.results().forEach(r -> groups.computeIfAbsent(r.group(), g -> new ArrayList<>()).add(r));
        return groups;
    }

    private static String oneLine(String s, int max) {
        String line = s.replace('\n', ' ');
        return line.length() > max ? line.substring(0, max - 3) + "..." : line;
    }

    private static String cell(String s) {
        return s.replace("|", "\\|");
    }

    static String xmlEscape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (char c : s.toCharArray()) {
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&apos;");
                default -> {
                    if (c < 0x20 && c != '\n' && c != '\t' && c != '\r') {
                        out.append('?'); // not allowed in XML 1.0
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        return out.toString();
    }

    static String htmlEscape(String s) {
        return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;");
    }
}
