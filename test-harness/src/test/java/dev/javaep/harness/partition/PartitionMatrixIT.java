package dev.javaep.harness.partition;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.bridge.CapabilityReports;
import dev.javaep.harness.TestPaths;
import dev.javaep.harness.TestRegistrations;
import dev.javaep.harness.ort.EpDevice;
import dev.javaep.harness.ort.OrtEnvironment;
import dev.javaep.harness.ort.OrtHost;
import dev.javaep.harness.ort.Session;
import dev.javaep.harness.ort.SessionOptions;
import dev.javaep.harness.ort.TensorData;
import dev.javaep.harness.partition.PartitionCases.Case;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The partition matrix on JavaCpuExecutionProvider: graphs that mix JavaCpu's nodes with nodes only
 * ORT's CPU EP runs give ORT's CPU outputs, with the claims each case expects.
 */
class PartitionMatrixIT {
    private static final String REGISTRATION = "javaep-partition-matrix";
    private static final String JAVA_CPU = "JavaCpuExecutionProvider";

    private static OrtEnvironment env;
    private static EpDevice device;

    @BeforeAll
    static void register() {
        env = OrtHost.shared().createEnvironment(REGISTRATION, OrtHost.LogLevel.ERROR);
        TestRegistrations.register(env, REGISTRATION, JAVA_CPU, JavaCudaPlanningExecutionProviderFactory.NAME);
        device = env.epDevice(JAVA_CPU);
    }

    @AfterAll
    static void unregister() {
        if (env != null) {
            env.unregisterExecutionProviderLibrary(REGISTRATION);
            env.close();
        }
    }

    static List<Case> cases() {
        return PartitionCases.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void givesOrtCpuOutputsWithTheExpectedClaims(Case c) {
        new PartitionMatrix(env, device).check(c);
    }

    /** JavaCuda's decisions ({@link JavaCudaPlanningExecutionProviderFactory}, no GPU needed) claim the same. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void javaCudaDecisionsClaimTheSame(Case c) {
        new PartitionMatrix(env, env.epDevice(JavaCudaPlanningExecutionProviderFactory.NAME)).checkClaims(c);
    }

    /**
     * ORT's profiler sees the 16-node chain as one node: one kernel event per Run, of JavaCpu's fused
     * node, and no other node event.
     */
    @Test
    void theChainIsOneCompiledNodePerRunInOrtsProfile(@TempDir Path dir) throws IOException {
        Case chain = PartitionCases.chain16();
        int runs = 3;
        String profile;
        CapabilityReports.clear();
        try (SessionOptions options = env.createSessionOptions().disableCpuEpFallback()
                .enableProfiling(dir.resolve("chain16").toString())
                .appendExecutionProvider(List.of(device), Map.of());
             Session session = env.createSession(chain.bytes(), options)) {
            Map<String, TensorData> inputs = chain.inputSets().getFirst();
            List<Map<String, TensorData>> expected = new PartitionMatrix(env, device).reference(chain);
            for (int i = 0; i < runs; i++) {
                PartitionMatrix.assertOutputsEqual("chain16 profiled Run " + i, expected.getFirst(), session.run(inputs));
            }
            profile = session.endProfiling();
        }
        List<CapabilityReports.Report> reports = CapabilityReports.recent().stream().filter(r -> r.ep().equals(JAVA_CPU)).toList();
        assertEquals(1, reports.stream().mapToInt(CapabilityReports.Report::compiledGroups).sum(), "compiled groups: " + reports);
        assertEquals(16, reports.stream().mapToInt(CapabilityReports.Report::compiledNodes).sum(), "compiled nodes: " + reports);

        Path file = Path.of(profile);
        assertTrue(Files.isRegularFile(file), "ORT names the profile it wrote: " + profile);
        List<OrtProfile.Event> events = OrtProfile.read(file);
        List<OrtProfile.Event> kernels = events.stream().filter(OrtProfile.Event::isNodeKernelTime).toList();
        System.out.println("ORT profile " + file.getFileName() + ": " + events.size() + " events; node kernel events:");
        kernels.forEach(e -> System.out.println("  " + e));
        assertEquals(runs, kernels.size(), "one node kernel event per Run: " + kernels);
        assertEquals(1, kernels.stream().map(OrtProfile.Event::name).distinct().count(),
                "every Run ran the same single node: " + kernels);
        assertTrue(kernels.stream().allMatch(e -> JAVA_CPU.equals(e.provider())), "the node is JavaCpu's fused node: " + kernels);
        assertEquals(runs, events.stream().filter(e -> "model_run".equals(e.name())).count(), "ORT profiled " + runs + " Runs");
    }
}
