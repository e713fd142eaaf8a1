package dev.javaep.validation;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;

/**
 * The layer's findings as lines appended to a file ({@code JAVAEP_VALIDATE_REPORTS} / {@code javaep.validate.reports}),
 * one {@code write} each, so that a crash loses none written before it: every violation ({@code KIND}, callback,
 * what was wrong) and every error status the vendor returned ({@code STATUS}, callback, code and message). A harness
 * that runs the vendor's library in steps appends {@link #mark section markers} to the same file and reads, after
 * the process ended however it ended, which findings each step provoked ({@link #read}): the conformance kit's
 * {@code --validate} marks each check.
 */
public final class ReportFile {
    public static final String PROPERTY = "javaep.validate.reports";
    public static final String ENVIRONMENT = "JAVAEP_VALIDATE_REPORTS";
    /** The kind of the lines a failed status adds (not a violation: failing is an EP's right). */
    public static final String STATUS = "STATUS";
    private static final String SECTION = "section";

    /**
     * One finding: the section it fell in (the last {@link #mark} before it, or "" before any), its kind (a
     * {@link Violation} name or {@link #STATUS}), the callback ({@code OrtEp::GetCapability}) and the detail.
     */
    public record Line(String section, String kind, String callback, String detail) {
        /** A breach of the contract (not a status, not a {@link Violation#isWarning warning}). */
        public boolean isViolation() {
            return !kind.equals(STATUS) && !Violation.valueOf(kind).isWarning();
        }

        public boolean isWarning() {
            return !kind.equals(STATUS) && Violation.valueOf(kind).isWarning();
        }

        @Override
        public String toString() {
            return kind + " in " + callback + ": " + detail;
        }
    }

    private final Path file;

    ReportFile(Path file) {
        this.file = file;
    }

    Path file() {
        return file;
    }

    void add(String kind, String callback, String detail) {
        append(file, String.join("\t", kind, oneLine(callback), oneLine(detail)));
    }

    /** Starts a section: the findings after this line (until the next mark) are {@code section}'s. */
    public static void mark(Path file, String section) {
        append(file, String.join("\t", SECTION, oneLine(section)));
    }

    /** The findings in {@code file}, oldest first; none when there is no file. */
    public static List<Line> read(Path file) {
        List<Line> lines = new ArrayList<>();
        if (!Files.isRegularFile(file)) {
            return lines;
        }
        String section = "";
        try {
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                String[] fields = line.split("\t", 3);
                if (fields[0].equals(SECTION) && fields.length == 2) {
                    section = fields[1];
                } else if (fields.length == 3) {
                    lines.add(new Line(section, fields[0], fields[1], fields[2]));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read the layer's reports " + file, e);
        }
        return lines;
    }

    private static String oneLine(String s) {
        return s.replace('\t', ' ').replace('\n', ' ').replace("\r", "");
    }

    /** One append of one line (O_APPEND: writers in two processes, or threads, do not interleave within a line). */
    private static void append(Path file, String line) {
        try {
            Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE,
                    StandardOpenOption.WRITE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            throw new UncheckedIOException("javaep validation: cannot append to " + file, e);
        }
    }
}
