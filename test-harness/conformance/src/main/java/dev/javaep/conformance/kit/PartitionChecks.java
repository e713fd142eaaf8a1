package dev.javaep.conformance.kit;

import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * {@code getcapability.no-cycles}: the groups an EP claims must not form a cycle with the rest of the graph (group
 * {A, C} around a node B it declines, with A → B → C, cannot be one fused node). A host does not see the groups; it
 * sees what ORT does with them: a cyclic fusion fails the session ("not acyclic" from the graph resolve, or ORT's
 * partitioner refusing the group) or is logged, and a fusion ORT let through runs in the wrong order and gives wrong
 * outputs. So the check creates sessions (CPU fallback on) over two built-in bait models, where any EP that takes the
 * outer nodes and declines the middle one is tempted into a cyclic group, and the node-test corpus, and fails on a
 * session error or ORT log line that names a cycle (ORT 1.29 logs "set nodes that cannot be fused together" and drops
 * the group), or a bait output that is not the reference. It cannot see a cyclic group that ORT silently drops (the
 * EP then just runs less).
 */
final class PartitionChecks {
    private PartitionChecks() {}

    static List<Check> checks() {
        return List.of(new Check("getcapability.no-cycles",
                "claimed groups form no cycle with the rest of the graph: no session (fallback on) over the bait models"
                        + " and the corpus fails or logs a cycle, and the bait models give the reference outputs",
                PartitionChecks::noCycles));
    }

    /** A bait model: y = Add(middle(Add(a, b)), Add(a, b)), with {@code middle} a unary op an EP may decline. */
    static byte[] bait(String middle) {
        return new OnnxModelWriter("conformance_cycle_bait_" + middle)
                .input("a", ElementType.FLOAT, Dim.param("N"))
                .input("b", ElementType.FLOAT, Dim.param("N"))
                .output("y", ElementType.FLOAT, Dim.param("N"))
                .node("Add", List.of("a", "b"), List.of("t"))
                .node(middle, List.of("t"), List.of("u"))
                .node("Add", List.of("u", "t"), List.of("y"))
                .toByteArray();
    }

    private static float reference(String middle, float t) {
        float u = switch (middle) {
            case "Relu" -> Math.max(0, t);
            case "Neg" -> -t;
            default -> throw new IllegalArgumentException(middle);
        };
        return u + t;
    }

    private static String noCycles(KitContext context) {
        List<String> problems = new ArrayList<>();
        int models = 0;
        float[] a = {-2, -1, 0, 1, 2, 3};
        float[] b = {0.5f, -0.5f, 1, -3, 4, 0};
        for (String middle : List.of("Relu", "Neg")) {
            models++;
            long mark = context.ortLogSize();
            try (Session session = context.session(bait(middle), true)) {
                float[] y = session.run(Map.of("a", TensorData.ofFloats(new long[] {a.length}, a),
                        "b", TensorData.ofFloats(new long[] {b.length}, b))).get("y").floats();
                for (int i = 0; i < a.length; i++) {
                    float expected = reference(middle, a[i] + b[i]);
                    if (Float.compare(expected, y[i]) != 0) {
                        problems.add("Add→" + middle + "→Add gave " + Arrays.toString(y) + " at element " + i
                                + " (expected " + expected + "): a fused group ran out of order");
                        break;
                    }
                }
            } catch (RuntimeException e) {
                if (namesCycle(e.getMessage())) {
                    problems.add("Add→" + middle + "→Add: " + CapabilityChecks.firstLine(e.getMessage()));
                } else {
                    problems.add("Add→" + middle + "→Add failed with the EP first: " + CapabilityChecks.firstLine(e.getMessage()));
                }
            }
            logged(context, mark, "Add→" + middle + "→Add", problems);
        }
        for (Path test : context.nodeTests()) {
            models++;
            long mark = context.ortLogSize();
            try (SessionOptions options = context.sessionOptions(true)) {
                context.env().createSession(test.resolve("model.onnx"), options).close();
            } catch (RuntimeException e) {
                if (namesCycle(e.getMessage())) {
                    problems.add(test.getFileName() + ": " + CapabilityChecks.firstLine(e.getMessage()));
                }
                // other failures are getcapability.fallback-on's to report
            }
            logged(context, mark, test.getFileName().toString(), problems);
        }
        if (!problems.isEmpty()) {
            throw Check.fail(String.join("; ", problems.subList(0, Math.min(5, problems.size())))
                    + (problems.size() > 5 ? "; ..." : ""));
        }
        return models + " models (2 bait, " + (models - 2) + " corpus) partition without a cycle; bait outputs exact";
    }

    private static void logged(KitContext context, long mark, String model, List<String> problems) {
        // ORT 1.29 drops such a group with "... set nodes that cannot be fused together" (ep_plugin_provider_interfaces.cc)
        for (String needle : List.of("cycle", "acyclic", "cannot be fused together")) {
            List<String> lines = context.ortLogSince(mark, needle);
            if (!lines.isEmpty()) {
                String line = lines.getFirst();
                int at = line.indexOf("OrtEp::"); // past the time stamp and source location
                problems.add(model + ": ORT logged " + CapabilityChecks.firstLine(at < 0 ? line : line.substring(at)));
                return;
            }
        }
    }

    private static boolean namesCycle(String message) {
        String m = message == null ? "" : message.toLowerCase(Locale.ROOT);
        return m.contains("cycle") || m.contains("acyclic");
    }
}
