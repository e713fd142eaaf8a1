package dev.javaep.harness.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.conformance.kit.CheckResult;
import dev.javaep.conformance.kit.ConformanceTests;
import dev.javaep.conformance.kit.ConformanceKit;
import dev.javaep.conformance.kit.KitOptions;
import dev.javaep.conformance.kit.KitReport;
import dev.javaep.conformance.kit.ReportWriter;
import dev.javaep.conformance.kit.Verdict;
import dev.javaep.harness.TestPaths;
import dev.javaep.harness.conformance.gallery.CrashingComputeFactory;
import dev.javaep.harness.conformance.gallery.FdClosingImporterFactory;
import dev.javaep.harness.conformance.gallery.LeakingFactory;
import dev.javaep.harness.conformance.gallery.LyingImporterFactory;
import dev.javaep.harness.conformance.gallery.RacyRunFactory;
import dev.javaep.harness.conformance.gallery.ThrowingCapabilityFactory;
import dev.javaep.harness.conformance.gallery.WrongAddFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicNode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The conformance kit on JavaCpu (every group, as JUnit dynamic tests: what a vendor's build does) and on the gallery
 * of deliberately broken EPs (each flagged by the check meant to catch it). Small corpora and few cycles keep it near
 * a minute on a 2-core machine; each group runs in a child JVM.
 */
class ConformanceKitIT {
    /** A few dozen single-op node tests of ops both JavaCpu and the gallery EPs meet. */
    private static final String CORPUS = "test_(add|sub|mul|relu|sigmoid|matmul)(_.*)?";

    private static KitOptions options(String ep, String reportName) {
        Path nodeTests = TestPaths.nodeTests();
        return KitOptions.of(TestPaths.loaderLibrary()).withEp(ep)
                .withNodeTests(Files.isDirectory(nodeTests) ? nodeTests : null, CORPUS, 40)
                .withReportDir(Path.of("target", "conformance", reportName))
                .withCycles(25, 60).withConcurrency(2, 10).withTimeout(120)
                .withChildProperty("javaep.factories", ep);
    }

    @TestFactory
    Stream<DynamicNode> javaCpuConforms() {
        return ConformanceTests.of(options("JavaCpuExecutionProvider", "javacpu"));
    }

    private static KitReport runGallery(String ep, Set<String> groups) {
        KitReport report = ConformanceKit.run(options(ep, ep).withOnly(groups), r -> {});
        ReportWriter.writeAll(report);
        System.out.print(ReportWriter.console(report));
        assertEquals(1, report.exitCode(), "a broken EP must make the kit exit 1");
        return report;
    }

    private static void assertVerdict(KitReport report, String id, Verdict verdict, String reasonPart) {
        CheckResult result = report.result(id);
        assertEquals(verdict, result.verdict(), result::toString);
        assertTrue(result.reason().contains(reasonPart), () -> "reason of " + id + " should mention " + reasonPart + ": " + result);
    }

    @Test
    void wrongOutputIsFlaggedByTheNodeTests() {
        KitReport report = runGallery(WrongAddFactory.NAME, Set.of("correctness"));
        assertVerdict(report, "correctness.node-tests", Verdict.FAIL, "test_add");
        assertTrue(report.opTable().stream().anyMatch(row -> row.op().equals("Add") && row.epPassed() < row.ortCpuPassed()),
                report.opTable()::toString);
    }

    @Test
    void crashInComputeIsAttributedAndTheRunGoesOn() {
        KitReport report = runGallery(CrashingComputeFactory.NAME, Set.of("getcapability", "correctness", "bad-input"));
        assertVerdict(report, "correctness.node-tests", Verdict.CRASH, "died while running correctness.node-tests");
        assertVerdict(report, "correctness.models", Verdict.SKIP, "correctness.node-tests");
        // the groups before and after the crash ran in their own JVMs
        assertEquals(Verdict.PASS, report.result("getcapability.fallback-on").verdict(), report.results()::toString);
        assertEquals(Verdict.PASS, report.result("bad-input.truncated-model").verdict(), report.results()::toString);
    }

    @Test
    void throwingGetCapabilityIsFlagged() {
        KitReport report = runGallery(ThrowingCapabilityFactory.NAME, Set.of("getcapability"));
        assertVerdict(report, "getcapability.fallback-on", Verdict.FAIL, "fail with the EP first");
    }

    @Test
    void leakPerSessionIsFlaggedByTheTrend() {
        KitReport report = runGallery(LeakingFactory.NAME, Set.of("lifecycle"));
        assertVerdict(report, "lifecycle.session-cycles", Verdict.FAIL, "Java heap grows");
        assertEquals(Verdict.PASS, report.result("lifecycle.register-cycles").verdict(), report.results()::toString);
    }

    @Test
    void lyingCanImportIsFlagged() {
        KitReport report = runGallery(LyingImporterFactory.NAME, Set.of("importer"));
        assertVerdict(report, "importer.can-import-truthful", Verdict.FAIL, "CanImportMemory(VK_MEMORY_OPAQUE_FD) answers true");
        assertEquals(Verdict.PASS, report.result("importer.bad-descriptors").verdict(), report.results()::toString);
    }

    @Test
    void importerClosingTheCallersFdIsFlagged() {
        KitReport report = runGallery(FdClosingImporterFactory.NAME, Set.of("importer"));
        assertVerdict(report, "importer.caller-handles-untouched", Verdict.FAIL, "closed the caller's fd");
        assertEquals(Verdict.PASS, report.result("importer.can-import-truthful").verdict(), report.results()::toString);
        assertEquals(Verdict.PASS, report.result("importer.release-orders").verdict(), report.results()::toString);
    }

    @Test
    void runThatIsNotThreadSafeIsFlagged() {
        KitReport report = runGallery(RacyRunFactory.NAME, Set.of("concurrency"));
        assertVerdict(report, "concurrency.shared-session", Verdict.FAIL, "differ from the serial Run");
    }

    @Test
    void reportsAreWritten() throws Exception {
        KitReport report = ConformanceKit.run(options("JavaCpuExecutionProvider", "javacpu-registration")
                .withOnly(Set.of("registration")), r -> {});
        List<Path> files = ReportWriter.writeAll(report);
        assertEquals(0, report.exitCode(), report.results()::toString);
        String xml = Files.readString(files.get(0));
        assertTrue(xml.contains("<testcase classname=\"conformance.registration\" name=\"registration.factory-names\""), xml);
        assertTrue(Files.readString(files.get(2)).contains("registration.memory-infos"));
    }
}
