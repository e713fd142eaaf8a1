package dev.javaep.harness.structure;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * docs/architecture.md's layering table, and what the main sources of a checkout do against it. Each row names a
 * package (it covers its subpackages too, unless a longer row covers them), the module folder it lives in, and the
 * packages it may use (each with its subpackages; a row may always use its own). The sources' references to project
 * packages ({@code dev.javaep.*}, {@code com.example.*}) are their imports and the qualified names in their code;
 * comments and string literals do not count.
 */
record Layering(List<Row> rows) {
    /** The heading of the table's section in docs/architecture.md. */
    static final String SECTION = "## Layering";
    /** The packages the table governs; references to anything else (the JDK, libraries) are the poms' business. */
    static final Pattern PROJECT_REFERENCE = Pattern.compile(
            "\\b((?:dev\\.javaep|com\\.example)(?:\\.[a-z_][a-z0-9_]*)*)(?=\\s*\\.\\s*(?:[A-Z]|\\*))");
    private static final Pattern CODE_SPAN = Pattern.compile("`([^`]+)`");
    private static final Pattern SOURCE = Pattern.compile("(.+?)/src/main/java/(.+)/[^/]+\\.java");

    record Row(String pkg, String module, Set<String> mayUse) {
        boolean covers(String other) {
            return within(other, pkg);
        }

        boolean allows(String used) {
            return covers(used) || mayUse.stream().anyMatch(allowed -> within(used, allowed));
        }
    }

    /** One source file's breach of the table, said the way a reviewer would want it. */
    record Violation(String file, String message) {
        @Override
        public String toString() {
            return file + ": " + message;
        }
    }

    static boolean within(String pkg, String prefix) {
        return pkg.equals(prefix) || pkg.startsWith(prefix + ".");
    }

    /** The table under {@link #SECTION} in a Markdown document: rows of `package` | `module` ... | `a`, `b` or —. */
    static Layering parse(String markdown) {
        int start = markdown.indexOf("\n" + SECTION);
        if (start < 0) {
            throw new IllegalArgumentException("no section '" + SECTION + "'");
        }
        int end = markdown.indexOf("\n## ", start + SECTION.length() + 1);
        List<Row> rows = new ArrayList<>();
        for (String line : markdown.substring(start, end < 0 ? markdown.length() : end).lines().toList()) {
            if (!line.startsWith("| `")) {
                continue;
            }
            String[] cells = line.split("\\|");
            if (cells.length < 4) {
                throw new IllegalArgumentException("a layering row needs package | module | may use: " + line);
            }
            String pkg = firstCode(cells[1]).orElseThrow(() -> new IllegalArgumentException("no package in " + line));
            String module = firstCode(cells[2]).orElseThrow(() -> new IllegalArgumentException("no module in " + line));
            Set<String> mayUse = new TreeSet<>();
            Matcher m = CODE_SPAN.matcher(cells[3]);
            while (m.find()) {
                mayUse.add(m.group(1));
            }
            rows.add(new Row(pkg, module, mayUse));
        }
        if (rows.isEmpty()) {
            throw new IllegalArgumentException("the section '" + SECTION + "' has no rows");
        }
        return new Layering(List.copyOf(rows));
    }

    private static Optional<String> firstCode(String cell) {
        Matcher m = CODE_SPAN.matcher(cell);
        return m.find() ? Optional.of(m.group(1)) : Optional.empty();
    }

    /** The row of a package: the one whose package is the longest prefix of it. */
    Optional<Row> rowOf(String pkg) {
        return rows.stream().filter(r -> r.covers(pkg)).max(Comparator.comparingInt(r -> r.pkg().length()));
    }

    /** The table's own faults: a may-use no row covers, and module arrows that go both ways. */
    List<String> inconsistencies() {
        List<String> faults = new ArrayList<>();
        Map<String, Set<String>> arrows = moduleArrows();
        for (Row row : rows) {
            for (String used : row.mayUse()) {
                if (rowOf(used).isEmpty()) {
                    faults.add(row.pkg() + " may use " + used + ", which no row places in a module");
                }
            }
        }
        for (var from : arrows.entrySet()) {
            for (String to : from.getValue()) {
                if (reaches(arrows, to, from.getKey())) {
                    faults.add("modules " + from.getKey() + " and " + to + " point at each other (through the table's rows)");
                }
            }
        }
        return faults;
    }

    /** module → the modules its rows may use (itself left out). */
    Map<String, Set<String>> moduleArrows() {
        Map<String, Set<String>> arrows = new TreeMap<>();
        for (Row row : rows) {
            Set<String> targets = arrows.computeIfAbsent(row.module(), k -> new TreeSet<>());
            for (String used : row.mayUse()) {
                rowOf(used).map(Row::module).filter(m -> !m.equals(row.module())).ifPresent(targets::add);
            }
        }
        return arrows;
    }

    private static boolean reaches(Map<String, Set<String>> arrows, String from, String to) {
        Set<String> seen = new TreeSet<>();
        List<String> todo = new ArrayList<>(List.of(from));
        while (!todo.isEmpty()) {
            String next = todo.removeLast();
            if (next.equals(to)) {
                return true;
            }
            if (seen.add(next)) {
                todo.addAll(arrows.getOrDefault(next, Set.of()));
            }
        }
        return false;
    }

    /** Every main source file under {@code root} (outside build outputs and hidden folders) against the table. */
    Report check(Path root) throws IOException {
        List<Violation> violations = new ArrayList<>();
        Map<String, Set<String>> packagesByModule = new TreeMap<>();
        Map<String, Set<String>> uses = new TreeMap<>();
        for (Path file : mainSources(root)) {
            String relative = root.relativize(file).toString().replace('\\', '/');
            Matcher where = SOURCE.matcher(relative);
            if (!where.matches() || where.group(1).contains("/src/")) {
                continue; // a file under some other module's src/test (a fixture), or not in a source folder
            }
            String module = where.group(1);
            String pkg = where.group(2).replace('/', '.');
            packagesByModule.computeIfAbsent(module, k -> new TreeSet<>()).add(pkg);
            Optional<Row> row = rowOf(pkg);
            if (row.isEmpty()) {
                violations.add(new Violation(relative, "package " + pkg + " has no row in the layering table"));
                continue;
            }
            if (!row.get().module().equals(module)) {
                violations.add(new Violation(relative, "package " + pkg + " belongs in " + row.get().module()
                        + " (row " + row.get().pkg() + "), not in " + module));
            }
            for (String used : references(Files.readString(file))) {
                uses.computeIfAbsent(pkg, k -> new TreeSet<>()).add(used);
                if (!row.get().allows(used)) {
                    violations.add(new Violation(relative, pkg + " uses " + used + ", which row " + row.get().pkg()
                            + " does not allow (" + (row.get().mayUse().isEmpty() ? "JDK only"
                            : "may use " + String.join(", ", row.get().mayUse())) + ")"));
                }
            }
        }
        return new Report(violations, packagesByModule, uses);
    }

    /** What a check found: the violations, and what it read (for the log). */
    record Report(List<Violation> violations, Map<String, Set<String>> packagesByModule, Map<String, Set<String>> uses) {}

    /** The project packages a source file refers to, from its imports and qualified names; its own is left out. */
    static Set<String> references(String source) {
        String code = withoutCommentsAndLiterals(source);
        String own = "";
        Matcher pkg = Pattern.compile("(?m)^\\s*package\\s+([\\w.]+)\\s*;").matcher(code);
        if (pkg.find()) {
            own = pkg.group(1);
            code = code.substring(pkg.end());
        }
        Set<String> used = new TreeSet<>();
        Matcher m = PROJECT_REFERENCE.matcher(code);
        while (m.find()) {
            if (!m.group(1).equals(own)) {
                used.add(m.group(1));
            }
        }
        return used;
    }

    /** Java source with comments, string literals (text blocks too) and char literals blanked out. */
    static String withoutCommentsAndLiterals(String s) {
        StringBuilder out = new StringBuilder(s.length());
        int i = 0;
        while (i < s.length()) {
            if (s.startsWith("//", i)) {
                int end = s.indexOf('\n', i);
                i = end < 0 ? s.length() : end;
            } else if (s.startsWith("/*", i)) {
                int end = s.indexOf("*/", i + 2);
                i = end < 0 ? s.length() : end + 2;
                out.append(' ');
            } else if (s.startsWith("\"\"\"", i)) {
                int end = s.indexOf("\"\"\"", i + 3);
                while (end > 0 && s.charAt(end - 1) == '\\') {
                    end = s.indexOf("\"\"\"", end + 1);
                }
                i = end < 0 ? s.length() : end + 3;
                out.append("\"\"");
            } else if (s.charAt(i) == '"' || s.charAt(i) == '\'') {
                char quote = s.charAt(i++);
                while (i < s.length() && s.charAt(i) != quote && s.charAt(i) != '\n') {
                    i += s.charAt(i) == '\\' ? 2 : 1;
                }
                i++;
                out.append(quote).append(quote);
            } else {
                out.append(s.charAt(i++));
            }
        }
        return out.toString();
    }

    /** The .java files under some src/main/java below {@code root}, skipping target/ and hidden folders. */
    static List<Path> mainSources(Path root) throws IOException {
        return SourceTree.files(root, Set.of(), file -> {
            String path = file.toString().replace('\\', '/');
            return path.endsWith(".java") && path.contains("/src/main/java/");
        });
    }

    static Layering read(Path markdown) {
        try {
            return parse(Files.readString(markdown));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
