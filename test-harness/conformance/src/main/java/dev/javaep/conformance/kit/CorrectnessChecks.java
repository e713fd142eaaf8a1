package dev.javaep.conformance.kit;

import dev.javaep.conformance.ModelComparison;
import dev.javaep.conformance.NodeTestResult;
import dev.javaep.conformance.NodeTestRunner;
import dev.javaep.conformance.OpNodeTests;
import dev.javaep.conformance.models.Models;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

/** Results against ONNX's expected outputs and against ORT's CPU EP. */
final class CorrectnessChecks {
    private CorrectnessChecks() {}

    static CheckGroup group() {
        return new CheckGroup("correctness", "node tests per op and models, compared with ORT's CPU EP", List.of(
                new Check("correctness.node-tests",
                        "every single-op node test ORT's CPU EP passes, the EP passes or declines (CPU fallback off)",
                        CorrectnessChecks::nodeTests),
                new Check("correctness.models",
                        "models the EP takes whole give ORT's CPU EP's outputs on seeded random inputs",
                        CorrectnessChecks::models),
                PartitionMatrix.check()));
    }

    private static String nodeTests(KitContext context) {
        List<Path> corpus = context.requireNodeTests();
        Map<String, List<Path>> byOp = new TreeMap<>();
        for (Path test : corpus) {
            OpNodeTests.opOf(test).ifPresent(op -> byOp.computeIfAbsent(op, o -> new ArrayList<>()).add(test));
        }
        if (byOp.isEmpty()) {
            throw Check.skip("no single-op node tests among the " + corpus.size() + " corpus tests");
        }
        List<OpNodeTests.Row> rows = OpNodeTests.run(byOp, new NodeTestRunner(context.env(), context.device()),
                NodeTestRunner.onOrtCpu(context.env()));
        List<String> wrong = new ArrayList<>();
        long tests = 0;
        long passed = 0;
        long ortPassed = 0;
        for (OpNodeTests.Row row : rows) {
            List<String> why = new ArrayList<>();
            for (NodeTestResult behind : row.behindOrtCpu()) {
                why.add(behind.test() + ": " + behind.outcome() + (behind.detail().isEmpty() ? "" : " " + behind.detail()));
                if (behind.outcome() == NodeTestResult.Outcome.FAILED) {
                    wrong.add(behind.test() + " (" + CapabilityChecks.firstLine(behind.detail()) + ")");
                }
            }
            context.opTable().add(new OpTableRow(row.op(), row.onEp().size(), row.epPassed(), row.ortCpuPassed(),
                    String.join("; ", why)));
            tests += row.onEp().size();
            passed += row.epPassed();
            ortPassed += row.ortCpuPassed();
        }
        String counts = rows.size() + " ops, " + tests + " tests: " + passed + " pass on " + context.epName() + ", "
                + ortPassed + " on ORT's CPU EP";
        if (!wrong.isEmpty()) {
            throw Check.fail(wrong.size() + " wrong result(s) where ORT's CPU EP is right (" + counts + "): "
                    + String.join("; ", wrong.subList(0, Math.min(5, wrong.size()))) + (wrong.size() > 5 ? "; ..." : ""));
        }
        return counts;
    }

    /** The {@code .onnx} files of {@code --models}, sorted; none without it. */
    static List<Path> userModels(KitContext context) throws IOException {
        if (context.options().models() == null) {
            return List.of();
        }
        try (Stream<Path> files = Files.list(context.options().models())) {
            return files.filter(f -> f.getFileName().toString().endsWith(".onnx")).sorted().toList();
        }
    }

    private static String models(KitContext context) throws IOException {
        Map<String, Path> models = new LinkedHashMap<>();
        Path scratch = Files.createTempDirectory("javaep-conformance-models");
        try {
            models.put("built-in mlp", Files.write(scratch.resolve("mlp.onnx"), Models.mlp()));
            models.put("built-in normalize-image", Files.write(scratch.resolve("normalize.onnx"), Models.normalizeImage(8, 8)));
            userModels(context).forEach(f -> models.put(f.getFileName().toString(), f));
            List<String> compared = new ArrayList<>();
            List<String> notTaken = new ArrayList<>();
            List<String> mismatches = new ArrayList<>();
            for (var model : models.entrySet()) {
                ModelComparison.Result result;
                try {
                    result = ModelComparison.run(context.env(), context.device(), model.getValue());
                } catch (RuntimeException e) {
                    notTaken.add(model.getKey());
                    continue;
                }
                compared.add(model.getKey());
                if (!result.matches()) {
                    mismatches.add(model.getKey() + ": " + String.join(", ", result.mismatches()));
                }
            }
            if (!mismatches.isEmpty()) {
                throw Check.fail(String.join("; ", mismatches));
            }
            if (compared.isEmpty()) {
                throw Check.skip(context.epName() + " takes none of the models whole: " + notTaken);
            }
            return "match: " + compared + (notTaken.isEmpty() ? "" : "; not taken whole: " + notTaken);
        } finally {
            try (Stream<Path> files = Files.list(scratch)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(scratch);
        }
    }
}
