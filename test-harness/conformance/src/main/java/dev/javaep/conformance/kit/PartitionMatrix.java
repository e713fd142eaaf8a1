package dev.javaep.conformance.kit;

import dev.javaep.conformance.ModelComparison;
import dev.javaep.conformance.models.Models;
import dev.javaep.harness.onnx.OnnxModelReader;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * {@code correctness.partition-matrix}: with ORT's CPU fallback on, a model the EP takes only part of runs split
 * between the EP and ORT's CPU EP, and must give what ORT's CPU EP gives alone (the tensors crossing the cut are where
 * an EP's layout, stride or copy bugs show). Which node ran where a host reads from ORT's profile: one
 * {@code <node>_kernel_time} event per node or fused group per Run, with its provider. The per-model verdict is the
 * split (kernels on the EP, on ORT's CPU EP) and whether the outputs agree within the node tests' tolerances; a model
 * the EP takes nothing of, or all of (no cut: the node-test and model checks judge it, against expected outputs), is
 * informational.
 */
final class PartitionMatrix {
    /** A kernel event of ORT's profile: the node's (or fused group's) name and the provider that ran it. */
    private static final Pattern KERNEL_EVENT = Pattern.compile(
            "\"name\"\\s*:\\s*\"([^\"]*)_kernel_time\".*?\"provider\"\\s*:\\s*\"([^\"]*)\"");

    private PartitionMatrix() {}

    static Check check() {
        return new Check("correctness.partition-matrix",
                "with CPU fallback on, models the EP takes part of run split and give ORT's CPU EP's outputs; per model:"
                        + " kernels on the EP and on ORT's CPU EP (from ORT's profile); informational where it takes nothing",
                PartitionMatrix::matrix);
    }

    /** How one model ran with the EP first: where its kernels went, and the outputs' mismatches. */
    private record Split(int onEp, int onCpu, List<String> mismatches) {}

    private static String matrix(KitContext context) throws IOException {
        Map<String, byte[]> models = new LinkedHashMap<>();
        models.put("bait Add→Relu→Add", PartitionChecks.bait("Relu"));
        models.put("bait Add→Neg→Add", PartitionChecks.bait("Neg"));
        models.put("built-in mlp", Models.mlp());
        models.put("built-in normalize-image", Models.normalizeImage(8, 8));
        for (Path model : CorrectnessChecks.userModels(context)) {
            models.put(model.getFileName().toString(), Files.readAllBytes(model));
        }
        for (Path test : context.nodeTests()) {
            models.put(test.getFileName().toString(), Files.readAllBytes(test.resolve("model.onnx")));
        }
        List<String> split = new ArrayList<>();
        List<String> whole = new ArrayList<>();
        List<String> nothing = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        int notCompared = 0;
        int wholeDiffering = 0;
        Path profiles = Files.createTempDirectory("javaep-partition-matrix");
        try {
            for (var model : models.entrySet()) {
                Map<String, TensorData> inputs;
                Map<String, TensorData> reference;
                try (SessionOptions plain = context.env().createSessionOptions();
                     Session onOrtCpu = context.env().createSession(model.getValue(), plain)) {
                    inputs = ModelComparison.randomInputs(OnnxModelReader.parse(model.getValue()), Map.of());
                    reference = onOrtCpu.run(inputs);
                } catch (RuntimeException e) {
                    notCompared++; // ORT's CPU EP cannot load or run it on random tensors: nothing to compare with
                    continue;
                }
                Split result;
                try {
                    result = runSplit(context, model.getValue(), inputs, reference, profiles);
                } catch (RuntimeException e) {
                    problems.add(model.getKey() + ": ORT's CPU EP runs it, with " + context.epName() + " first it fails: "
                            + CapabilityChecks.firstLine(e.getMessage()));
                    continue;
                }
                String where = model.getKey() + " (" + result.onEp() + " on the EP, " + result.onCpu() + " on CPU)";
                if (result.onEp() == 0) {
                    nothing.add(model.getKey());
                } else if (result.onCpu() == 0) {
                    // no cut to check: a model the EP takes whole is correctness.node-tests' and correctness.models'
                    // business, judged there against the tests' expected outputs (ORT's CPU EP is not always right:
                    // ORT 1.30 reduces an empty axis of [2, 0, 4] to [2, 0, 4] where ONNX says [2, 1, 4])
                    whole.add(model.getKey());
                    if (!result.mismatches().isEmpty()) {
                        wholeDiffering++;
                    }
                } else if (!result.mismatches().isEmpty()) {
                    problems.add(where + ": " + String.join(", ", result.mismatches()));
                } else {
                    split.add(where);
                }
            }
        } finally {
            try (Stream<Path> files = Files.list(profiles)) {
                for (Path f : files.toList()) {
                    Files.deleteIfExists(f);
                }
            }
            Files.deleteIfExists(profiles);
        }
        String summary = split.size() + " split and match" + (split.isEmpty() ? "" : " " + split) + "; " + whole.size()
                + " whole on " + context.epName()
                + (wholeDiffering == 0 ? "" : " (" + wholeDiffering + " of them differ from ORT's CPU EP on random inputs:"
                        + " not judged here, see correctness.node-tests)") + "; " + nothing.size() + " with nothing on it (informational)"
                + (notCompared == 0 ? "" : "; " + notCompared + " ORT's CPU EP cannot run on random inputs");
        if (!problems.isEmpty()) {
            throw Check.fail(problems.size() + " model(s) differ from ORT's CPU EP with fallback on: "
                    + String.join("; ", problems.subList(0, Math.min(5, problems.size())))
                    + (problems.size() > 5 ? "; ..." : "") + " (" + summary + ")");
        }
        return summary;
    }

    /** Runs {@code model} with the EP first and fallback on, profiled; where its kernels went and what differs. */
    private static Split runSplit(KitContext context, byte[] model, Map<String, TensorData> inputs,
                                  Map<String, TensorData> reference, Path profiles) {
        try (SessionOptions options = context.sessionOptions(true)
                .enableProfiling(profiles.resolve("split").toString());
             Session session = context.env().createSession(model, options)) {
            Map<String, TensorData> actual = session.run(inputs);
            Path profile = Path.of(session.endProfiling());
            Set<String> onEp = new HashSet<>();
            Set<String> onCpu = new HashSet<>();
            try (Stream<String> lines = Files.lines(profile)) {
                lines.forEach(line -> {
                    Matcher event = KERNEL_EVENT.matcher(line);
                    while (event.find()) {
                        (event.group(2).equals(context.epName()) ? onEp : onCpu).add(event.group(1));
                    }
                });
            } catch (IOException e) {
                throw new UncheckedIOException("cannot read ORT's profile " + profile, e);
            }
            return new Split(onEp.size(), onCpu.size(), ModelComparison.compare(inputs, actual, reference).mismatches());
        }
    }
}
