package dev.javaep.harness.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.conformance.kit.CheckResult;
import dev.javaep.conformance.kit.ConformanceKit;
import dev.javaep.conformance.kit.KitOptions;
import dev.javaep.conformance.kit.KitReport;
import dev.javaep.conformance.kit.ReportWriter;
import dev.javaep.conformance.kit.Verdict;
import dev.javaep.harness.TestPaths;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * The conformance kit on plugin EPs written in plain C (issue 14: the kit is not only for Java EPs): the correct EP
 * of src/test/c/gallery passes every check that applies to it, and each broken build of the same source is flagged
 * by the check meant to catch its fault, with the verdict and the attribution a vendor needs. The libraries are built
 * by src/test/c/gallery/build.sh at test-compile; without a C compiler (or off Linux) there are none and this skips.
 */
class CGalleryIT {
    /** Add and Relu (the gallery EP's ops, float and not) and Sub (which it declines). */
    private static final String CORPUS = "test_(add|relu|sub)(_.*)?";

    static Path library(String file) {
        Path dir = Path.of(System.getProperty("c.gallery.dir", "target/c-gallery"));
        Path library = dir.resolve(file);
        assumeTrue(Files.isRegularFile(library), "no " + library + ": the C gallery is built on Linux with a C compiler"
                + " (src/test/c/gallery/build.sh says in the build log why it was not)");
        return library;
    }

    static boolean haveNodeTests() {
        return Files.isDirectory(TestPaths.nodeTests());
    }

    private static KitReport run(String file, String ep, Set<String> groups) {
        return run(file, ep, groups, "c-gallery", UnaryOperator.identity());
    }

    /** The kit on {@code file}'s EP, {@code groups} only, reports under target/conformance/{@code folder}/{@code ep}. */
    static KitReport run(String file, String ep, Set<String> groups, String folder, UnaryOperator<KitOptions> more) {
        KitOptions options = more.apply(KitOptions.of(library(file)).withEp(ep)
                .withNodeTests(haveNodeTests() ? TestPaths.nodeTests() : null, CORPUS, 40)
                .withReportDir(Path.of("target", "conformance", folder, ep))
                .withOnly(groups).withCycles(25, 60).withConcurrency(2, 10).withTimeout(120));
        KitReport report = ConformanceKit.run(options, r -> {});
        ReportWriter.writeAll(report);
        System.out.print(ReportWriter.console(report));
        return report;
    }

    private static KitReport runBroken(String fault, String ep, Set<String> groups) {
        KitReport report = run("libjavaep_gallery_c_" + fault + ".so", ep, groups);
        assertEquals(1, report.exitCode(), "a broken EP must make the kit exit 1: " + report.results());
        return report;
    }

    static void assertVerdict(KitReport report, String id, Verdict verdict, String... reasonParts) {
        CheckResult result = report.result(id);
        assertEquals(verdict, result.verdict(), result::toString);
        for (String part : reasonParts) {
            assertTrue(result.reason().contains(part), () -> "reason of " + id + " should mention " + part + ": " + result);
        }
    }

    static void assumeNodeTests() {
        assumeTrue(haveNodeTests(), "no ONNX node tests under " + TestPaths.nodeTests() + ": the corpus checks skip");
    }

    @Test
    void correctCEpPassesEveryCheckThatApplies() {
        KitReport report = run("libjavaep_gallery_c.so", "CGalleryExecutionProvider", Set.of());
        assertEquals(0, report.exitCode(), report.results()::toString);
        for (CheckResult result : report.results()) {
            assertTrue(result.verdict() == Verdict.PASS || result.verdict() == Verdict.SKIP, result::toString);
        }
        for (String id : List.of("registration.creates-ep", "bad-input.run-wrong-shape", "bad-input.empty-tensor",
                "lifecycle.register-cycles", "lifecycle.session-cycles", "concurrency.shared-session",
                "concurrency.separate-sessions")) {
            assertEquals(Verdict.PASS, report.result(id).verdict(), report.result(id)::toString);
        }
        // the EP registers no memory of its own: ORT's CPU allocator serves it and the allocator checks do not apply
        assertVerdict(report, "allocators.alignment", Verdict.SKIP, "registers no memory info");
        // with fallback on, the EP takes the two Adds of Add→Neg→Add and the Add of the MLP, ORT's CPU EP the rest: they agree
        assertVerdict(report, "correctness.partition-matrix", Verdict.PASS, "bait Add→Neg→Add (2 on the EP, 1 on CPU)",
                "built-in mlp (1 on the EP, 3 on CPU)", "whole on CGalleryExecutionProvider");
        // its kernel, not ORT's, refused the shapes that do not broadcast
        assertVerdict(report, "bad-input.run-wrong-shape", Verdict.PASS, "CGalleryExecutionProvider: Add: the input shapes do not broadcast");
        if (haveNodeTests()) {
            assertVerdict(report, "getcapability.fallback-on", Verdict.PASS, "models load with the EP first");
            assertVerdict(report, "correctness.node-tests", Verdict.PASS, "pass on CGalleryExecutionProvider");
            // float Add (test_add, test_add_bcast) and Relu pass; Add of other types and Sub are declined, not failed
            assertTrue(report.opTable().stream().anyMatch(row -> row.op().equals("Add") && row.epPassed() == 2), report.opTable()::toString);
            assertTrue(report.opTable().stream().anyMatch(row -> row.op().equals("Relu") && row.epPassed() == row.ortCpuPassed()),
                    report.opTable()::toString);
        }
    }

    @Test
    void wrongAddIsFlaggedByTheNodeTests() {
        assumeNodeTests();
        KitReport report = runBroken("wrong_add", "CGalleryWrongAddExecutionProvider", Set.of("correctness"));
        assertVerdict(report, "correctness.node-tests", Verdict.FAIL, "where ORT's CPU EP is right", "test_add ",
                "pass on CGalleryWrongAddExecutionProvider");
        assertTrue(report.opTable().stream().anyMatch(row -> row.op().equals("Add") && row.epPassed() < row.ortCpuPassed()),
                report.opTable()::toString);
        assertTrue(report.opTable().stream().anyMatch(row -> row.op().equals("Relu") && row.epPassed() == row.ortCpuPassed()),
                "Relu is not broken: " + report.opTable());
        // a wrong kernel shows in split runs too: the Adds around ORT's Neg
        assertVerdict(report, "correctness.partition-matrix", Verdict.FAIL, "differ from ORT's CPU EP with fallback on",
                "bait Add→Neg→Add (2 on the EP, 1 on CPU)");
    }

    @Test
    void crashInComputeIsAttributedToTheLibrary() {
        KitReport report = runBroken("crash_in_compute", "CGalleryCrashInComputeExecutionProvider",
                Set.of("bad-input", "concurrency"));
        // a bad Run that the kernel refuses before it writes does not reach the fault; a good Run does
        assertVerdict(report, "bad-input.run-wrong-shape", Verdict.PASS, "status");
        assertVerdict(report, "concurrency.shared-session", Verdict.CRASH, "died while running concurrency.shared-session",
                "SIGSEGV", "libjavaep_gallery_c_crash_in_compute.so");
        assertVerdict(report, "concurrency.separate-sessions", Verdict.SKIP, "concurrency.shared-session took the group's child JVM down");
    }

    @Test
    void nativeLeakPerSessionIsFlaggedByTheTrend() {
        KitReport report = runBroken("leak_per_session", "CGalleryLeakPerSessionExecutionProvider", Set.of("lifecycle"));
        assertVerdict(report, "lifecycle.session-cycles", Verdict.FAIL, "RSS outside the Java heap grows");
        assertEquals(Verdict.PASS, report.result("lifecycle.register-cycles").verdict(), report.results()::toString);
    }

    @Test
    void getCapabilityErrorIsFlagged() {
        assumeNodeTests();
        KitReport report = runBroken("capability_error", "CGalleryCapabilityErrorExecutionProvider", Set.of("getcapability"));
        assertVerdict(report, "getcapability.fallback-on", Verdict.FAIL, "fail with the EP first",
                "GetCapability() for CGalleryCapabilityErrorExecutionProvider failed",
                "GetCapability cannot read the graph");
    }

    @Test
    void misalignedAllocatorIsFlagged() {
        KitReport report = runBroken("misaligned_allocator", "CGalleryMisalignedAllocatorExecutionProvider",
                Set.of("allocators"));
        assertVerdict(report, "allocators.alignment", Verdict.FAIL, "not 64-byte aligned", "CGalleryMemory");
        assertEquals(Verdict.PASS, report.result("allocators.create-release").verdict(), report.results()::toString);
        // its allocator returns NULL for what it cannot have (its round-up refuses sizes that would wrap); ORT's size
        // computation refuses 2^64 bytes before the allocator sees it
        assertVerdict(report, "allocators.huge", Verdict.PASS, "2^50 bytes from CGalleryMemory: NULL",
                "2^63 - 1 bytes from CGalleryMemory: NULL", "2^62 floats (2^64 bytes) from CGalleryMemory: status");
    }

    @Test
    void cyclicGroupIsFlaggedByNoCycles() {
        CheckResult noCycles = runBroken("cycle_claim", "CGalleryCycleClaimExecutionProvider", Set.of("getcapability"))
                .result("getcapability.no-cycles");
        // ORT 1.29 refuses the group {Add, Add} around the declined Relu/Neg, logs it and runs the model without the EP
        // (so the bait outputs are right: the log line is the only sign)
        assertEquals(Verdict.FAIL, noCycles.verdict(), noCycles::toString);
        assertTrue(noCycles.reason().startsWith("Add→Relu→Add: ORT logged OrtEp::GetCapability() for"
                + " CGalleryCycleClaimExecutionProvider set nodes that cannot be fused together"), noCycles::toString);
    }

    @Test
    void badMemoryInfoIsFlaggedByRegistration() {
        KitReport report = runBroken("bad_memory_info", "CGalleryBadMemoryInfoExecutionProvider", Set.of("registration"));
        assertVerdict(report, "registration.memory-infos", Verdict.FAIL, "DEFAULT memory on GPU for a CPU device");
        assertVerdict(report, "registration.ort-invariants", Verdict.FAIL, "the DEFAULT memory info has an empty name");
        // ORT believes the memory info: it wants a GPU copy for the session's inputs, and no one offers one
        assertVerdict(report, "registration.creates-ep", Verdict.FAIL, "no data transfer registered");
        assertVerdict(report, "registration.hardware-devices", Verdict.PASS);
        // the kit's own second CreateEpFactories is shared and released without harm (the last check does not crash)
        assertVerdict(report, "registration.ort-version-supported", Verdict.PASS);
    }

    @Test
    void deviceIsAnOptionTheChildArgumentsCarry() {
        KitOptions parsed = KitOptions.parse(List.of("libvendor_ep.so", "--device", "1"));
        assertEquals(1, parsed.deviceIndex());
        assertEquals(parsed, KitOptions.parse(parsed.toArgs()), "what toArgs writes, parse reads");
        assertEquals(0, KitOptions.parse(List.of("libvendor_ep.so")).deviceIndex(), "the first device by default");
        IllegalArgumentException negative = assertThrows(IllegalArgumentException.class,
                () -> KitOptions.parse(List.of("libvendor_ep.so", "--device", "-1")));
        assertTrue(negative.getMessage().contains("--device needs a whole number from 0"), negative::getMessage);
    }

    @Test
    void deviceOutOfRangeIsAUsageError() {
        KitReport report = run("libjavaep_gallery_c.so", "CGalleryExecutionProvider", Set.of("registration", "allocators"),
                "c-gallery-device", options -> options.withDevice(1));
        assertEquals(2, report.exitCode(), report.results()::toString);
        assertEquals("--device 1: CGalleryExecutionProvider offers 1 EP device(s) here (--device 0)",
                report.usageError().orElseThrow());
        assertVerdict(report, "registration.creates-ep", Verdict.SKIP, "--device 1: ");
        // the run stops at the first group that met it
        assertTrue(report.results().stream().noneMatch(r -> r.group().equals("allocators")), report.results()::toString);
    }

    @Test
    void doubleReleaseCrashesTheFirstSessionThatIsReleased() {
        KitReport report = runBroken("double_release", "CGalleryDoubleReleaseExecutionProvider", Set.of("registration"));
        assertVerdict(report, "registration.library-registers", Verdict.PASS);
        // glibc aborts in ReleaseNodeComputeInfos; its message is the attribution (an abort leaves no JVM crash report)
        assertVerdict(report, "registration.creates-ep", Verdict.CRASH, "died while running registration.creates-ep",
                "SIGABRT", "double free");
    }

    @Test
    void sharedScratchBufferIsFlaggedByConcurrentRuns() {
        KitReport report = runBroken("not_thread_safe", "CGalleryNotThreadSafeExecutionProvider", Set.of("concurrency"));
        assertVerdict(report, "concurrency.shared-session", Verdict.FAIL, "differ from the serial Run");
    }
}
