package dev.javaep.conformance.kit;

import java.util.List;
import java.util.Optional;

/**
 * The lines a group's child JVM writes on stdout for the parent: {@code running <id>} before each check (so a crash
 * names the check that was running), {@code result} after it, {@code optable} for the per-op table. Fields are
 * tab-separated with tabs, newlines and backslashes escaped; any other line is the EP's or ORT's own output.
 */
final class Protocol {
    static final String PREFIX = "javaep-conformance ";

    private Protocol() {}

    static String running(String id) {
        return PREFIX + "running\t" + id;
    }

    static String info(String key, String value) {
        return PREFIX + "info\t" + escape(key) + "\t" + escape(value);
    }

    static String result(CheckResult r) {
        return PREFIX + "result\t" + String.join("\t", escape(r.id()), r.verdict().name(), Long.toString(r.millis()),
                escape(r.reason()));
    }

    static String opTable(OpTableRow row) {
        return PREFIX + "optable\t" + String.join("\t", escape(row.op()), Integer.toString(row.tests()),
                Long.toString(row.epPassed()), Long.toString(row.ortCpuPassed()), escape(row.behind()));
    }

    /** A parsed line: its kind ({@code running}, {@code result}, {@code optable}) and fields. */
    record Line(String kind, List<String> fields) {}

    static Optional<Line> parse(String line) {
        if (!line.startsWith(PREFIX)) {
            return Optional.empty();
        }
        String[] parts = line.substring(PREFIX.length()).split("\t", -1);
        return Optional.of(new Line(parts[0], java.util.Arrays.stream(parts).skip(1).map(Protocol::unescape).toList()));
    }

    static String escape(String s) {
        return s.replace("\\", "\\\\").replace("\t", "\\t").replace("\n", "\\n").replace("\r", "");
    }

    static String unescape(String s) {
        StringBuilder out = new StringBuilder(s.length());
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c == '\\' && i + 1 < s.length()) {
                char next = s.charAt(++i);
                out.append(switch (next) {
                    case 't' -> '\t';
                    case 'n' -> '\n';
                    default -> next;
                });
            } else {
                out.append(c);
            }
        }
        return out.toString();
    }
}
