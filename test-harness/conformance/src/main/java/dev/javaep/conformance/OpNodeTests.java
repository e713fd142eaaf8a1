package dev.javaep.conformance;

import dev.javaep.harness.onnx.OnnxModel;
import dev.javaep.harness.onnx.OnnxModelReader;
import dev.javaep.harness.onnx.OnnxNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Stream;

/**
 * The ONNX node tests of each op, as the op table and the EP checks use them: a test belongs to op X when its
 * model is one ONNX-domain node of type X (the "_expanded" variants, which decompose an op into others, and
 * multi-node tests belong to no op). Which ops an EP is checked on comes from its kernel table, not from a
 * hand-kept list: give {@link #byOp} the table's op types.
 */
public final class OpNodeTests {
    /** One op's node tests on one EP and on ORT's CPU EP. */
    public record Row(String op, List<NodeTestResult> onEp, List<NodeTestResult> onOrtCpu) {
        public long epPassed() {
            return onEp.stream().filter(NodeTestResult::passed).count();
        }

        public long ortCpuPassed() {
            return onOrtCpu.stream().filter(NodeTestResult::passed).count();
        }

        /** Tests ORT's CPU EP passes and the EP does not: what the EP owes. */
        public List<NodeTestResult> behindOrtCpu() {
            List<NodeTestResult> behind = new ArrayList<>();
            for (int i = 0; i < onEp.size(); i++) {
                if (!onEp.get(i).passed() && onOrtCpu.get(i).passed()) {
                    behind.add(onEp.get(i));
                }
            }
            return behind;
        }
    }

    private OpNodeTests() {}

    /** The op type of a single-node ONNX-domain test, or empty. */
    public static Optional<String> opOf(Path testDir) {
        try {
            OnnxModel model = OnnxModelReader.read(testDir.resolve("model.onnx"));
            List<OnnxNode> nodes = model.graph().nodes();
            if (nodes.size() != 1 || testDir.getFileName().toString().contains("_expanded")) {
                return Optional.empty();
            }
            OnnxNode node = nodes.getFirst();
            boolean onnxDomain = node.domain().isEmpty() || node.domain().equals("ai.onnx");
            return onnxDomain ? Optional.of(node.opType()) : Optional.empty();
        } catch (IOException | RuntimeException e) {
            return Optional.empty(); // a test javaep cannot read belongs to no op: the corpus IT reports unreadable models
        }
    }

    /** The node tests under {@code root} of each op in {@code ops}, by op type (sorted), tests sorted. */
    public static Map<String, List<Path>> byOp(Path root, Collection<String> ops) {
        Map<String, List<Path>> tests = new TreeMap<>();
        ops.forEach(op -> tests.put(op, new ArrayList<>()));
        try (Stream<Path> dirs = Files.list(root)) {
            for (Path dir : dirs.filter(d -> Files.exists(d.resolve("model.onnx"))).sorted().toList()) {
                opOf(dir).filter(tests::containsKey).ifPresent(op -> tests.get(op).add(dir));
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return tests;
    }

    /** Runs every test of {@code tests} on both runners. */
    public static List<Row> run(Map<String, List<Path>> tests, NodeTestRunner ep, NodeTestRunner ortCpu) {
        List<Row> rows = new ArrayList<>();
        tests.forEach((op, dirs) -> rows.add(new Row(op, dirs.stream().map(ep::run).toList(),
                dirs.stream().map(ortCpu::run).toList())));
        return rows;
    }

    /**
     * The rows as a Markdown table: op, node tests, passed on the EP, passed on ORT's CPU EP, and the tests the
     * EP does not pass that ORT's CPU EP does, each with the EP's reason.
     */
    public static String markdown(String epName, List<Row> rows) {
        StringBuilder md = new StringBuilder();
        md.append("| op | node tests | ").append(epName).append(" passes | ORT CPU passes | not passing on ")
                .append(epName).append(" (why) |\n|---|---|---|---|---|\n");
        for (Row row : rows) {
            List<String> why = row.behindOrtCpu().stream()
                    .map(r -> "`" + r.test() + "`: " + r.outcome() + (r.detail().isEmpty() ? "" : " " + shorten(r.detail())))
                    .toList();
            md.append("| ").append(row.op()).append(" | ").append(row.onEp().size()).append(" | ").append(row.epPassed())
                    .append(" | ").append(row.ortCpuPassed()).append(" | ").append(String.join("<br>", why)).append(" |\n");
        }
        return md.toString();
    }

    private static String shorten(String detail) {
        String oneLine = detail.replace('|', '/').replace('\n', ' ');
        return oneLine.length() > 160 ? oneLine.substring(0, 157) + "..." : oneLine;
    }
}
