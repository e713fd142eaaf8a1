package dev.javaep.harness.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.bridge.CapabilityReports;
import dev.javaep.harness.TestPaths;
import dev.javaep.harness.TestRegistrations;
import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.SessionOptions;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.DeclineCode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * GetCapability over every ONNX node-test model: whatever the graph (control flow, sequences, optional
 * values, every op and type of the ONNX suite), the EP answers without a contained failure and never
 * makes a model ORT's CPU EP loads fail to load. Run for JavaCpu and for JavaCuda's decisions
 * ({@link JavaCudaPlanningExecutionProviderFactory}, on the CPU), with CPU fallback on; sessions are
 * created and closed, nothing runs.
 */
class CapabilityCorpusIT {
    private static final String REGISTRATION = "javaep-capability-corpus";

    /** What GetCapability did over the corpus for one EP. */
    private static final class Survey {
        final String ep;
        int loaded;
        final List<String> skipped = new ArrayList<>();
        final List<String> errors = new ArrayList<>();
        final List<String> failures = new ArrayList<>();
        int reports;
        int modelsWithClaims;
        long claimedNodes;
        long compiledGroups;
        long kernelNodes;
        final Map<DeclineCode, Long> declines = new EnumMap<>(DeclineCode.class);

        Survey(String ep) {
            this.ep = ep;
        }

        void add(String model, List<CapabilityReports.Report> modelReports) {
            reports += modelReports.size();
            int claimed = 0;
            for (CapabilityReports.Report r : modelReports) {
                claimed += r.claimedNodes();
                compiledGroups += r.compiledGroups();
                kernelNodes += r.kernelNodes();
                r.declines().forEach((code, n) -> declines.merge(code, (long) n, Long::sum));
                r.failures().forEach(f -> failures.add(model + ": " + f));
            }
            claimedNodes += claimed;
            if (claimed > 0) {
                modelsWithClaims++;
            }
        }
    }

    @Test
    void getCapabilityNeverFailsOnAnyNodeTestModel() throws IOException {
        List<Path> models = models();
        long started = System.nanoTime();
        Survey cpu;
        Survey cuda;
        try (OrtEnvironment env = OrtHost.shared().createEnvironment(REGISTRATION, OrtHost.LogLevel.FATAL)) {
            TestRegistrations.register(env, REGISTRATION, "JavaCpuExecutionProvider", JavaCudaPlanningExecutionProviderFactory.NAME);
            try (SessionOptions ortCpu = env.createSessionOptions()) {
                cpu = survey(env, env.epDevice("JavaCpuExecutionProvider"), ortCpu, models);
                cuda = survey(env, env.epDevice(JavaCudaPlanningExecutionProviderFactory.NAME), ortCpu, models);
            } finally {
                env.unregisterExecutionProviderLibrary(REGISTRATION);
            }
        }
        print(models.size(), List.of(cpu, cuda), (System.nanoTime() - started) / 1_000_000);

        for (Survey s : List.of(cpu, cuda)) {
            assertEquals(List.of(), s.errors, s.ep + " made models fail to load that ORT's CPU EP loads");
            assertEquals(List.of(), s.failures, s.ep + ": contained failures in GetCapability");
            // ORT 1.29's CPU EP lacks some ops, types and opsets of the newer node tests (227 of 1326 with
            // the tests in ../shared); most models must load, or the skip rule is hiding failures.
            assertTrue(s.loaded >= models.size() * 3 / 4, s.ep + ": only " + s.loaded + " of " + models.size()
                    + " models loaded; skipped: " + s.skipped);
            assertTrue(s.modelsWithClaims > 0 && s.compiledGroups > 0, s.ep + " claimed nothing in the whole corpus");
        }
        // A model is skipped where neither ORT's CPU EP nor the added EP runs it. JavaCpu runs a few ORT's CPU EP cannot
        // (Max on uint16, Where on int8); the planning JavaCuda, without NVRTC here, none that JavaCpu cannot.
        assertTrue(cuda.skipped.containsAll(cpu.skipped), "models beyond ORT's CPU EP with JavaCpu but not with JavaCuda: "
                + cpu.skipped.stream().filter(m -> !cuda.skipped.contains(m)).toList());
    }

    private static List<Path> models() throws IOException {
        Path root = TestPaths.nodeTests();
        assumeTrue(Files.isDirectory(root), "ONNX node tests not found at " + root);
        try (Stream<Path> dirs = Files.list(root)) {
            return dirs.map(d -> d.resolve("model.onnx")).filter(Files::isRegularFile).sorted().toList();
        }
    }

    /** One session per model with the EP (CPU fallback on); a model that fails is retried on ORT's CPU EP alone. */
    private static Survey survey(OrtEnvironment env, EpDevice device, SessionOptions ortCpu, List<Path> models) {
        Survey survey = new Survey(device.epName());
        try (SessionOptions options = env.createSessionOptions().appendExecutionProvider(List.of(device), Map.of())) {
            for (Path model : models) {
                String name = model.getParent().getFileName().toString();
                CapabilityReports.clear();
                try {
                    env.createSession(model, options).close();
                    survey.loaded++;
                } catch (OrtException withEp) {
                    String reason = firstLine(withEp.getMessage());
                    if (ortCpuLoads(env, model, ortCpu)) {
                        survey.errors.add(name + ": " + reason);
                    } else {
                        survey.skipped.add(name);
                    }
                }
                survey.add(name, CapabilityReports.recent().stream().filter(r -> r.ep().equals(device.epName())).toList());
                if (CapabilityReports.containedFailures() > 0 && survey.failures.isEmpty()) {
                    survey.failures.add(name + ": " + CapabilityReports.containedFailures() + " contained failure(s) counted");
                }
            }
        }
        return survey;
    }

    private static boolean ortCpuLoads(OrtEnvironment env, Path model, SessionOptions ortCpu) {
        try {
            env.createSession(model, ortCpu).close();
            return true;
        } catch (OrtException e) {
            return false;
        }
    }

    private static void print(int models, List<Survey> surveys, long millis) {
        System.out.printf("GetCapability over %d ONNX node-test models (%d ms)%n", models, millis);
        StringBuilder header = new StringBuilder(String.format("%-34s", ""));
        surveys.forEach(s -> header.append(String.format("%36s", s.ep)));
        System.out.println(header);
        row(surveys, "models loaded", s -> s.loaded);
        row(surveys, "skipped (ORT's CPU EP cannot load)", s -> s.skipped.size());
        row(surveys, "GetCapability calls", s -> s.reports);
        row(surveys, "models with claims", s -> s.modelsWithClaims);
        row(surveys, "claimed nodes", s -> s.claimedNodes);
        row(surveys, "compiled groups", s -> s.compiledGroups);
        row(surveys, "per-op kernel nodes", s -> s.kernelNodes);
        for (DeclineCode code : DeclineCode.values()) {
            row(surveys, "declined " + code, s -> s.declines.getOrDefault(code, 0L));
        }
        row(surveys, "load errors caused by the EP", s -> s.errors.size());
        row(surveys, "contained failures (must be 0)", s -> s.failures.size());
        System.out.println("skipped: " + surveys.getFirst().skipped);
    }

    private static void row(List<Survey> surveys, String label, java.util.function.ToLongFunction<Survey> value) {
        StringBuilder line = new StringBuilder(String.format("%-34s", label));
        surveys.forEach(s -> line.append(String.format("%36d", value.applyAsLong(s))));
        System.out.println(line);
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
