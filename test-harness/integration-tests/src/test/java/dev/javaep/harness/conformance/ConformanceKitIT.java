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
import dev.javaep.harness.conformance.gallery.GalleryAddFactory;
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

    private static KitReport runGallery(Class<? extends GalleryAddFactory> factory, Set<String> groups) {
        String ep = GalleryAddFactory.nameOf(factory);
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

    /** The gallery EP of {@code factory}, run through {@code group} only, fails {@code failingId}, and passes {@code passingIds}. */
    private static KitReport assertFlagged(Class<? extends GalleryAddFactory> factory, String group, String failingId,
                                           String reasonPart, String... passingIds) {
        KitReport report = runGallery(factory, Set.of(group));
        assertVerdict(report, failingId, Verdict.FAIL, reasonPart);
        assertPasses(report, passingIds);
        return report;
    }

    private static void assertPasses(KitReport report, String... ids) {
        for (String id : ids) {
            assertEquals(Verdict.PASS, report.result(id).verdict(), report.results()::toString);
        }
    }

    @Test
    void wrongOutputIsFlaggedByTheNodeTests() {
        KitReport report = assertFlagged(WrongAddFactory.class, "correctness", "correctness.node-tests", "test_add");
        assertTrue(report.opTable().stream().anyMatch(row -> row.op().equals("Add") && row.epPassed() < row.ortCpuPassed()),
                report.opTable()::toString);
        // with fallback on, its Adds around ORT's Relu are wrong as well (the EP takes Add only: a split run)
        assertVerdict(report, "correctness.partition-matrix", Verdict.FAIL, "bait Add→Relu→Add (2 on the EP, 1 on CPU)");
    }

    @Test
    void crashInComputeIsAttributedAndTheRunGoesOn() {
        KitReport report = runGallery(CrashingComputeFactory.class, Set.of("getcapability", "correctness", "bad-input"));
        assertVerdict(report, "correctness.node-tests", Verdict.CRASH, "died while running correctness.node-tests");
        assertVerdict(report, "correctness.models", Verdict.SKIP, "correctness.node-tests");
        // the groups before and after the crash ran in their own JVMs
        assertPasses(report, "getcapability.fallback-on", "bad-input.truncated-model");
    }

    @Test
    void throwingGetCapabilityIsFlagged() {
        assertFlagged(ThrowingCapabilityFactory.class, "getcapability", "getcapability.fallback-on", "fail with the EP first");
    }

    @Test
    void leakPerSessionIsFlaggedByTheTrend() {
        assertFlagged(LeakingFactory.class, "lifecycle", "lifecycle.session-cycles", "Java heap grows", "lifecycle.register-cycles");
    }

    @Test
    void lyingCanImportIsFlagged() {
        assertFlagged(LyingImporterFactory.class, "importer", "importer.can-import-truthful", "CanImportMemory(VK_MEMORY_OPAQUE_FD) answers true", "importer.bad-descriptors");
    }

    @Test
    void importerClosingTheCallersFdIsFlagged() {
        assertFlagged(FdClosingImporterFactory.class, "importer", "importer.caller-handles-untouched", "closed the caller's fd", "importer.can-import-truthful", "importer.release-orders");
    }

    @Test
    void runThatIsNotThreadSafeIsFlagged() {
        assertFlagged(RacyRunFactory.class, "concurrency", "concurrency.shared-session", "differ from the serial Run");
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
