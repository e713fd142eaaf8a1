package dev.javaep.harness.docs;

import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OnnxOps;
import dev.javaep.spi.ops.OpSchema;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * docs/ops.md's tables, generated: what the op layer describes (each op's schema versions) and what each backend's
 * kernel table runs (the element types of the row's type parameter), straight from {@link OnnxOps} and the two
 * {@link KernelTable}s; and the sections the node-test ITs fill in. Each section sits between
 * {@code <!-- NAME:begin -->} and {@code <!-- NAME:end -->} markers.
 */
public final class OpsDoc {
    public static final String REGISTRY = "registry";

    private OpsDoc() {}

    public static Path file(Path repo) {
        return repo.resolve("docs/ops.md");
    }

    /** The registry table: op, the opset versions the schemas cover, JavaCpu's types, JavaCuda's types. */
    public static String registryTable() {
        Map<String, List<OpSchema>> schemas = new TreeMap<>();
        for (OpSchema schema : OnnxOps.all()) {
            schemas.computeIfAbsent((schema.domain().isEmpty() ? "" : schema.domain() + ".") + schema.opType(),
                    k -> new ArrayList<>()).add(schema);
        }
        Map<String, Set<ElementType>> cpu = typesByOp(CpuKernels.table());
        Map<String, Set<ElementType>> cuda = typesByOp(CudaOps.table());
        StringBuilder md = new StringBuilder("| op | opset versions | JavaCpu types | JavaCuda types |\n|---|---|---|---|\n");
        schemas.forEach((op, list) -> {
            int since = list.stream().mapToInt(OpSchema::since).min().orElseThrow();
            int last = list.stream().mapToInt(OpSchema::last).max().orElseThrow();
            md.append("| ").append(op).append(" | ").append(since).append("–").append(last).append(" | ")
                    .append(types(cpu.get(op))).append(" | ").append(types(cuda.get(op))).append(" |\n");
        });
        return md.toString();
    }

    private static Map<String, Set<ElementType>> typesByOp(KernelTable<?> table) {
        Map<String, Set<ElementType>> types = new TreeMap<>();
        for (KernelTable.Row<?> row : table.rows()) {
            String op = (row.schema().domain().isEmpty() ? "" : row.schema().domain() + ".") + row.schema().opType();
            types.computeIfAbsent(op, k -> EnumSet.noneOf(ElementType.class)).addAll(row.types());
        }
        return types;
    }

    private static String types(Set<ElementType> types) {
        if (types == null || types.isEmpty()) {
            return "—";
        }
        if (types.size() >= 16) {
            return "any fixed-size (" + types.size() + ")";
        }
        return new TreeSet<>(types.stream().map(t -> t.name().toLowerCase(java.util.Locale.ROOT)).collect(Collectors.toSet()))
                .stream().collect(Collectors.joining(", "));
    }

    /** The text between the section's markers in {@code doc}. */
    public static String section(String doc, String name) {
        int begin = doc.indexOf(begin(name));
        int end = doc.indexOf(end(name));
        if (begin < 0 || end < begin) {
            throw new IllegalStateException("docs/ops.md has no section " + name + " (markers " + begin(name) + " … " + end(name) + ")");
        }
        return doc.substring(begin + begin(name).length() + 1, end);
    }

    /** Replaces the section's text in the file. */
    public static void update(Path file, String name, String text) throws IOException {
        String doc = Files.readString(file);
        int begin = doc.indexOf(begin(name));
        int end = doc.indexOf(end(name));
        if (begin < 0 || end < begin) {
            throw new IllegalStateException(file + " has no section " + name);
        }
        Files.writeString(file, doc.substring(0, begin + begin(name).length()) + "\n" + text + doc.substring(end));
    }

    private static String begin(String name) {
        return "<!-- " + name + ":begin -->";
    }

    private static String end(String name) {
        return "<!-- " + name + ":end -->";
    }
}
