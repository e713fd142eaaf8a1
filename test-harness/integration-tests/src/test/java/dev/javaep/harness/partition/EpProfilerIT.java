package dev.javaep.harness.partition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.AddReluMulGroup;
import dev.javaep.harness.JavaepRegistration;
import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * javaep's own events in ORT's profile ({@code OrtEp::CreateProfiler}, API 25): with session profiling on, the
 * JSON {@code SessionEndProfiling} writes holds one {@code javaep:<fused node>} event per Compute of a compiled
 * group, with the EP, the group's nodes and a time inside the Run ORT profiled, and one per step inside it (JavaCpu:
 * the step's wall time, args {@code op}, {@code group}, {@code host_us}). On ORT 1.24 (API 24) the slot stays
 * NULL and the profile holds ORT's events only.
 */
class EpProfilerIT {
    private static final String REGISTRATION = "javaep-ep-profiler";
    private static final String JAVA_CPU = "JavaCpuExecutionProvider";
    @RegisterExtension
    static final JavaepRegistration JAVAEP = new JavaepRegistration(REGISTRATION, OrtHost.LogLevel.WARNING, JAVA_CPU);

    @TempDir
    Path temp;

    private static int runtimeMinor() {
        return Integer.parseInt(OrtHost.shared().version().split("\\.")[1]);
    }

    @Test
    void ortsProfileHoldsOneJavaepEventPerComputeOfTheGroup() throws Exception {
        byte[] model = AddReluMulGroup.model("profiled_group");
        int runs = 3;
        String profile;
        EpDevice device = JAVAEP.env().epDevice(JAVA_CPU);
        try (SessionOptions options = JAVAEP.env().createSessionOptions().disableCpuEpFallback()
                .enableProfiling(temp.resolve("javaep_profile").toString())
                .appendExecutionProvider(List.of(device), Map.of());
             Session session = JAVAEP.env().createSession(model, options)) {
            for (int run = 0; run < runs; run++) {
                assertArrayEquals(AddReluMulGroup.OUT, session.run(AddReluMulGroup.INPUTS).get("out").floats(), 1e-6f);
            }
            profile = session.endProfiling();
        }
        assertEquals(0, dev.javaep.bridge.BridgeStatistics.liveObjects().getOrDefault("OrtEpProfilerImpl", 0),
                () -> "ORT released the profiler with the session: " + dev.javaep.bridge.BridgeStatistics.liveObjects());
        List<OrtProfile.Event> events = OrtProfile.read(Path.of(profile));
        List<OrtProfile.Event> javaep = events.stream().filter(e -> e.name().startsWith("javaep:"))
                .filter(e -> e.args().containsKey("node_count")).toList();
        List<OrtProfile.Event> steps = events.stream().filter(e -> e.name().startsWith("javaep:"))
                .filter(e -> e.args().containsKey("op")).toList();
        List<OrtProfile.Event> modelRuns = events.stream().filter(e -> "model_run".equals(e.name())).toList();
        assertEquals(runs, modelRuns.size(), "ORT profiled every Run");
        if (runtimeMinor() < 25) {
            assertEquals(List.of(), javaep, "ORT " + OrtHost.shared().version() + " has no OrtEp::CreateProfiler");
            assertEquals(List.of(), steps);
            return;
        }
        stepsAreInsideTheirComputes(javaep, steps, runs);
        javaep.forEach(e -> System.out.println("  " + e + " ts=" + e.timestampMicros() + " " + e.args()));
        events.stream().filter(OrtProfile.Event::isNodeKernelTime)
                .forEach(e -> System.out.println("  ORT's: " + e + " ts=" + e.timestampMicros()));
        assertEquals(runs, javaep.size(), () -> "one javaep event per Compute of the one group: " + javaep);
        List<OrtProfile.Event> kernelTimes = events.stream().filter(OrtProfile.Event::isNodeKernelTime).toList();
        for (OrtProfile.Event event : javaep) {
            assertEquals("Node", event.category(), event::toString);
            assertEquals(JAVA_CPU, event.args().get("ep"));
            assertEquals("3", event.args().get("node_count"));
            assertEquals(AddReluMulGroup.OP_TYPES, AddReluMulGroup.opTypes(event.args().get("nodes")),
                    "the group's nodes in the order they run");
            assertTrue(kernelTimes.stream().anyMatch(k -> event.name().equals("javaep:" + k.name().replace("_kernel_time", ""))),
                    () -> "named after ORT's fused node, as ORT's own kernel event: " + event + " vs " + kernelTimes);
            assertTrue(event.durationMicros() >= 0, event::toString);
        }
        // On ORT's clock: each Compute lies inside ORT's own kernel event of the fused node in the same Run. javaep's
        // clock starts at its StartProfiling upcall, just after ORT measured the offset it passes (the stub is warmed
        // beforehand, so that is microseconds); allow for that and for rounding to microseconds.
        long slackMicros = 20;
        List<OrtProfile.Event> ours = javaep.stream().sorted(java.util.Comparator.comparingLong(OrtProfile.Event::timestampMicros)).toList();
        List<OrtProfile.Event> ortKernels = kernelTimes.stream()
                .sorted(java.util.Comparator.comparingLong(OrtProfile.Event::timestampMicros)).toList();
        assertEquals(runs, ortKernels.size(), ortKernels::toString);
        for (int i = 0; i < runs; i++) {
            OrtProfile.Event event = ours.get(i);
            OrtProfile.Event kernel = ortKernels.get(i);
            assertTrue(kernel.timestampMicros() - slackMicros <= event.timestampMicros()
                            && event.timestampMicros() + event.durationMicros()
                            <= kernel.timestampMicros() + kernel.durationMicros() + slackMicros,
                    () -> "Run " + javaep.indexOf(event) + ": javaep's " + event.timestampMicros() + "+" + event.durationMicros()
                            + "us inside ORT's " + kernel.timestampMicros() + "+" + kernel.durationMicros() + "us");
        }
    }

    /**
     * Inside each Compute, JavaCpu notes its steps: per Run one {@code javaep:<node>} event per node of the group, in
     * the order they ran, with the op and the group (ORT's fused node) in args, and a wall time inside the Compute's.
     */
    private static void stepsAreInsideTheirComputes(List<OrtProfile.Event> computes, List<OrtProfile.Event> steps, int runs) {
        steps.forEach(e -> System.out.println("  step " + e + " ts=" + e.timestampMicros() + " " + e.args()));
        assertEquals(3 * runs, steps.size(), () -> "one event per step per Run: " + steps);
        List<OrtProfile.Event> ordered = steps.stream()
                .sorted(java.util.Comparator.comparingLong(OrtProfile.Event::timestampMicros)).toList();
        List<OrtProfile.Event> computesInOrder = computes.stream()
                .sorted(java.util.Comparator.comparingLong(OrtProfile.Event::timestampMicros)).toList();
        long slackMicros = 2; // both rounded down to microseconds
        for (int run = 0; run < runs; run++) {
            OrtProfile.Event compute = computesInOrder.get(run);
            List<OrtProfile.Event> ofRun = ordered.subList(3 * run, 3 * run + 3);
            assertEquals(AddReluMulGroup.OP_TYPES, ofRun.stream().map(e -> e.args().get("op")).toList(),
                    "the steps of Run " + run + " in the order they ran");
            for (OrtProfile.Event step : ofRun) {
                assertEquals("Node", step.category(), step::toString);
                assertEquals(JAVA_CPU, step.args().get("ep"));
                assertEquals(compute.name(), "javaep:" + step.args().get("group"), "the step names its group");
                assertTrue(step.name().startsWith("javaep:") && step.name().length() > "javaep:".length(), step::toString);
                assertTrue(Double.parseDouble(step.args().get("host_us")) >= 0, step::toString);
                assertTrue(compute.timestampMicros() - slackMicros <= step.timestampMicros()
                                && step.timestampMicros() + step.durationMicros()
                                <= compute.timestampMicros() + compute.durationMicros() + slackMicros,
                        () -> "step " + step + " at " + step.timestampMicros() + " inside its Compute at "
                                + compute.timestampMicros() + "+" + compute.durationMicros() + "us");
            }
        }
    }
}
