package dev.javaep.harness.partition;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.javaep.bridge.CapabilityReports;
import dev.javaep.harness.partition.PartitionCases.Case;
import dev.javaep.harness.partition.PartitionCases.Claims;
import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.ElementType;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Collectors;

/**
 * Runs {@link PartitionCases} on one EP device: each model with CPU fallback on (and, for models of EP
 * ops only, off), every output equal to ORT's CPU EP on the same inputs, and what the EP claimed (read
 * from {@link CapabilityReports}, since the EP runs in this JVM) equal to the case's expectation.
 */
public record PartitionMatrix(OrtEnvironment env, EpDevice device) {
    /** Outputs may differ from ORT's CPU EP by this much, absolute plus relative. */
    public static final double TOLERANCE = 1e-5;

    /** The claims of one graph, summed over the GetCapability calls ORT made for it. */
    public record GraphClaims(int groups, int nodes, int calls) {}

    /** Runs {@code c} with CPU fallback on; with it off as well when every node is an EP op. */
    public void check(Case c) {
        List<Map<String, TensorData>> expected = reference(c);
        Map<String, GraphClaims> claims = runOnEp(c, false, expected);
        System.out.printf("partition %s %-32s %s; claims %s%n", device.epName(), c.name(), c.description(), claims);
        assertClaims(c, claims);
        if (c.epOnly()) {
            Map<String, GraphClaims> strict = runOnEp(c, true, expected);
            assertEquals(claims, strict, c.name() + ": the same claims with CPU fallback disabled");
        }
    }

    /**
     * Only the claims: creates a session on the EP (CPU fallback on) and runs nothing, for EPs that plan
     * without running ({@link JavaCudaPlanningExecutionProviderFactory}).
     */
    public void checkClaims(Case c) {
        CapabilityReports.clear();
        try (SessionOptions options = env.createSessionOptions().appendExecutionProvider(List.of(device), Map.of())) {
            env.createSession(c.bytes(), options).close();
        } catch (OrtException e) {
            throw new AssertionError(c.name() + ": session creation failed on " + device.epName() + ": " + e.getMessage()
                    + "\ncapability reports:" + describe(CapabilityReports.recent()), e);
        }
        Map<String, GraphClaims> claims = claims(c);
        System.out.printf("partition %s %-32s claims %s%n", device.epName(), c.name(), claims);
        assertClaims(c, claims);
    }

    /**
     * ORT's profiler sees {@code chain} (a model of EP ops only) as one node: one kernel event per Run, of the
     * EP's fused node, and no other node event.
     */
    public void checkOneNodePerRunInProfile(Case chain, Path dir) throws IOException {
        int runs = 3;
        String profile;
        CapabilityReports.clear();
        try (SessionOptions options = env.createSessionOptions().disableCpuEpFallback()
                .enableProfiling(dir.resolve(chain.name()).toString())
                .appendExecutionProvider(List.of(device), Map.of());
             Session session = env.createSession(chain.bytes(), options)) {
            Map<String, TensorData> inputs = chain.inputSets().getFirst();
            List<Map<String, TensorData>> expected = reference(chain);
            for (int i = 0; i < runs; i++) {
                assertOutputsEqual(chain.name() + " profiled Run " + i, expected.getFirst(), session.run(inputs));
            }
            profile = session.endProfiling();
        }
        String ep = device.epName();
        List<CapabilityReports.Report> reports = CapabilityReports.recent().stream().filter(r -> r.ep().equals(ep)).toList();
        assertEquals(1, reports.stream().mapToInt(CapabilityReports.Report::compiledGroups).sum(), "compiled groups: " + reports);

        Path file = Path.of(profile);
        assertTrue(Files.isRegularFile(file), "ORT names the profile it wrote: " + profile);
        List<OrtProfile.Event> events = OrtProfile.read(file);
        List<OrtProfile.Event> kernels = events.stream().filter(OrtProfile.Event::isNodeKernelTime).toList();
        System.out.println("ORT profile " + file.getFileName() + " on " + ep + ": " + events.size() + " events; node kernel events:");
        kernels.forEach(e -> System.out.println("  " + e));
        assertEquals(runs, kernels.size(), "one node kernel event per Run: " + kernels);
        assertEquals(1, kernels.stream().map(OrtProfile.Event::name).distinct().count(),
                "every Run ran the same single node: " + kernels);
        assertTrue(kernels.stream().allMatch(e -> ep.equals(e.provider())), "the node is " + ep + "'s fused node: " + kernels);
        assertEquals(runs, events.stream().filter(e -> "model_run".equals(e.name())).count(), "ORT profiled " + runs + " Runs");
    }

    /** ORT's CPU EP alone: the expected outputs, one map per input set. */
    public List<Map<String, TensorData>> reference(Case c) {
        try (SessionOptions options = env.createSessionOptions();
             Session session = env.createSession(c.bytes(), options)) {
            List<Map<String, TensorData>> outputs = new ArrayList<>();
            for (Map<String, TensorData> inputs : c.inputSets()) {
                outputs.add(session.run(inputs));
            }
            return outputs;
        }
    }

    /**
     * Creates a session on the EP, checks every Run against {@code expected}, and returns the EP's claims
     * per graph name.
     */
    public Map<String, GraphClaims> runOnEp(Case c, boolean disableFallback, List<Map<String, TensorData>> expected) {
        String mode = disableFallback ? "CPU fallback disabled" : "CPU fallback on";
        CapabilityReports.clear();
        Map<String, GraphClaims> claims;
        try (SessionOptions options = env.createSessionOptions()) {
            if (disableFallback) {
                options.disableCpuEpFallback();
            }
            options.appendExecutionProvider(List.of(device), Map.of());
            Session session;
            try {
                session = env.createSession(c.bytes(), options);
            } catch (OrtException e) {
                throw new AssertionError(c.name() + " (" + mode + "): session creation failed on " + device.epName()
                        + ": " + e.getMessage() + "\ncapability reports:" + describe(CapabilityReports.recent()), e);
            }
            try (session) {
                claims = claims(c);
                for (int run = 0; run < c.inputSets().size(); run++) {
                    Map<String, TensorData> actual;
                    try {
                        actual = session.run(c.inputSets().get(run));
                    } catch (OrtException e) {
                        throw new AssertionError(c.name() + " (" + mode + "): Run " + run + " failed on " + device.epName()
                                + ": " + e.getMessage(), e);
                    }
                    assertOutputsEqual(c.name() + " (" + mode + ") Run " + run, expected.get(run), actual);
                }
            }
        }
        return claims;
    }

    /** The EP's reports since the last clear, summed per graph; fails on any contained failure. */
    private Map<String, GraphClaims> claims(Case c) {
        List<CapabilityReports.Report> reports = CapabilityReports.recent().stream()
                .filter(r -> r.ep().equals(device.epName())).toList();
        assertTrue(!reports.isEmpty(), c.name() + ": ORT never asked " + device.epName() + " for its capability");
        List<String> failures = reports.stream().flatMap(r -> r.failures().stream()).toList();
        assertEquals(List.of(), failures, c.name() + ": GetCapability contained failures");
        assertEquals(0, CapabilityReports.containedFailures(), c.name() + ": contained failures counted");
        Map<String, GraphClaims> byGraph = new TreeMap<>();
        for (CapabilityReports.Report r : reports) {
            byGraph.merge(r.graph(), new GraphClaims(r.compiledGroups(), r.claimedNodes(), 1),
                    (a, b) -> new GraphClaims(a.groups() + b.groups(), a.nodes() + b.nodes(), a.calls() + b.calls()));
        }
        return byGraph;
    }

    private void assertClaims(Case c, Map<String, GraphClaims> actual) {
        for (Map.Entry<String, Claims> e : c.claims().entrySet()) {
            GraphClaims got = actual.get(e.getKey());
            Claims want = e.getValue();
            if (got == null) {
                fail(c.name() + ": no GetCapability report for graph '" + e.getKey() + "'; reports: " + actual);
            }
            assertEquals(want.compiledNodes(), got.nodes(), c.name() + ": nodes " + device.epName() + " claims in graph '"
                    + e.getKey() + "' (expected " + want + ", got " + got + ")");
            assertTrue(want.groupsMatch(got.groups()), c.name() + ": compiled groups in graph '" + e.getKey()
                    + "': expected " + want + ", got " + got);
        }
        actual.forEach((graph, got) -> {
            if (!c.claims().containsKey(graph)) {
                assertEquals(0, got.nodes(), c.name() + ": unexpected claims in graph '" + graph + "': " + got);
            }
        });
    }

    /** Same names, types and shapes; floats within {@link #TOLERANCE}; other types bit-equal. */
    public static void assertOutputsEqual(String what, Map<String, TensorData> expected, Map<String, TensorData> actual) {
        assertEquals(expected.keySet(), actual.keySet(), what + ": output names");
        for (String name : expected.keySet()) {
            TensorData e = expected.get(name);
            TensorData a = actual.get(name);
            assertEquals(e.elementType(), a.elementType(), what + ": type of " + name);
            assertArrayEquals(e.shape(), a.shape(), what + ": shape of " + name);
            if (e.elementType() != ElementType.FLOAT) {
                assertArrayEquals(e.data(), a.data(), what + ": " + name);
                continue;
            }
            float[] ev = e.floats();
            float[] av = a.floats();
            for (int i = 0; i < ev.length; i++) {
                if (!(Math.abs(av[i] - ev[i]) <= TOLERANCE + TOLERANCE * Math.abs(ev[i]))) {
                    fail(what + ": " + name + Arrays.toString(e.shape()) + " element " + i + " is " + av[i]
                            + ", ORT's CPU EP computes " + ev[i]);
                }
            }
        }
    }

    static String describe(List<CapabilityReports.Report> reports) {
        return reports.stream().map(r -> r.summary() + (r.failures().isEmpty() ? "" : " " + r.failures()))
                .collect(Collectors.joining("\n  ", "\n  ", ""));
    }
}
