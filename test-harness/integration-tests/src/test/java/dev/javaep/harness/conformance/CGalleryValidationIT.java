package dev.javaep.harness.conformance;

import static dev.javaep.harness.conformance.CGalleryIT.assertVerdict;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.conformance.kit.CheckResult;
import dev.javaep.conformance.kit.KitOptions;
import dev.javaep.conformance.kit.KitReport;
import dev.javaep.conformance.kit.Verdict;
import dev.javaep.harness.TestPaths;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The two tools of issue 14 joined: the conformance kit runs each C gallery EP behind the validation layer
 * ({@code --validate}: the child JVMs register libjavaep wrapping the gallery library), so a crash names the callback
 * that was running (the layer's breadcrumbs) and what the layer saw fails the check during which it saw it. Each
 * fault with the smallest group that provokes it (about a minute in all); docs/conformance.md has the table.
 */
class CGalleryValidationIT {
    private static KitReport validated(String fault, String ep, Set<String> groups) {
        String file = fault.isEmpty() ? "libjavaep_gallery_c.so" : "libjavaep_gallery_c_" + fault + ".so";
        return CGalleryIT.run(file, ep, groups, "c-gallery-validated",
                options -> options.withValidation(TestPaths.loaderLibrary()));
    }

    private static KitReport validatedBroken(String fault, String ep, Set<String> groups) {
        KitReport report = validated(fault, ep, groups);
        assertEquals(1, report.exitCode(), "a broken EP must make the kit exit 1: " + report.results());
        return report;
    }

    @Test
    void validateIsAFlagThatTheChildArgumentsCarry() {
        KitOptions parsed = KitOptions.parse(List.of("libvendor_ep.so", "--validate", "--only", "registration"));
        assertEquals(Path.of(".", "libjavaep.so"), parsed.validateThrough(), "without javaep.dist: libjavaep here");
        assertEquals(Set.of("registration"), parsed.only(), "--validate takes no value");
        assertEquals(parsed, KitOptions.parse(parsed.toArgs()), "what toArgs writes, parse reads");
        assertEquals(null, KitOptions.parse(List.of("libvendor_ep.so")).validateThrough());
    }

    @Test
    void correctCEpPassesBehindTheLayerWithNoViolation() {
        KitReport report = validated("", "CGalleryExecutionProvider", Set.of("registration", "bad-input", "concurrency"));
        assertEquals(0, report.exitCode(), report.results()::toString);
        for (CheckResult result : report.results()) {
            assertTrue(result.verdict() == Verdict.PASS || result.verdict() == Verdict.SKIP, result::toString);
            assertFalse(result.reason().contains("validation layer saw"), result::toString);
        }
        assertTrue(report.facts().get("validation").contains("behind the validation layer"), report.facts()::toString);
        // the kernel's refusal of shapes that do not broadcast is a status the layer sees and passes on, not a violation
        assertVerdict(report, "bad-input.run-wrong-shape", Verdict.PASS,
                "error status(es) through the layer: STATUS in OrtNodeComputeInfo::Compute");
    }

    @Test
    void crashInComputeIsAttributedToCompute() {
        KitReport report = validatedBroken("crash_in_compute", "CGalleryCrashInComputeExecutionProvider", Set.of("concurrency"));
        assertVerdict(report, "concurrency.shared-session", Verdict.CRASH, "died while running concurrency.shared-session",
                "crashed in OrtNodeComputeInfo::Compute", "SIGSEGV");
    }

    @Test
    void doubleReleaseIsAttributedToReleaseNodeComputeInfos() {
        KitReport report = validatedBroken("double_release", "CGalleryDoubleReleaseExecutionProvider", Set.of("registration"));
        // the second free is inside the vendor's own ReleaseNodeComputeInfos: ORT released each info once, so the layer
        // has no double release to report; its breadcrumbs name the callback glibc aborted in
        assertVerdict(report, "registration.creates-ep", Verdict.CRASH, "crashed in OrtEp::ReleaseNodeComputeInfos",
                "double free");
    }

    @Test
    void correctKernelRegistryEpPassesBehindTheLayerWithNoViolation() {
        KitReport report = validated("kernels", "CGalleryKernelsExecutionProvider",
                Set.of("registration", "bad-input", "concurrency"));
        assertEquals(0, report.exitCode(), report.results()::toString);
        for (CheckResult result : report.results()) {
            assertTrue(result.verdict() == Verdict.PASS || result.verdict() == Verdict.SKIP, result::toString);
            assertFalse(result.reason().contains("validation layer saw"), result::toString);
        }
        // the kernels ORT created through the registry are the layer's proxies: their Compute's refusal is seen there
        assertVerdict(report, "bad-input.run-wrong-shape", Verdict.PASS,
                "error status(es) through the layer: STATUS in OrtKernelImpl::Compute");
    }

    @Test
    void crashInARegisteredKernelIsAttributedToOrtKernelImplCompute() {
        KitReport report = validatedBroken("kernels_crash_in_compute", "CGalleryKernelsCrashInComputeExecutionProvider",
                Set.of("concurrency"));
        assertVerdict(report, "concurrency.shared-session", Verdict.CRASH, "died while running concurrency.shared-session",
                "crashed in OrtKernelImpl::Compute", "SIGSEGV");
    }

    @Test
    void doubleReleaseOfARegisteredKernelIsAttributedToOrtKernelImplRelease() {
        KitReport report = validatedBroken("kernels_double_release", "CGalleryKernelsDoubleReleaseExecutionProvider",
                Set.of("registration"));
        // as with the compile path's, the second free is inside the vendor's own Release (ORT released the kernel once)
        assertVerdict(report, "registration.creates-ep", Verdict.CRASH, "crashed in OrtKernelImpl::Release", "double free");
    }

    @Test
    void misalignedAllocatorIsReportedByTheLayerInAlloc() {
        KitReport report = validatedBroken("misaligned_allocator", "CGalleryMisalignedAllocatorExecutionProvider",
                Set.of("allocators"));
        assertVerdict(report, "allocators.alignment", Verdict.FAIL, "not 64-byte aligned",
                "MISALIGNED_ALLOCATION in OrtAllocator::Alloc");
        // the layer sees every allocation, so the checks that allocate without looking at alignment fail as well
        assertVerdict(report, "allocators.create-release", Verdict.FAIL, "MISALIGNED_ALLOCATION in OrtAllocator::Alloc");
    }

    @Test
    void capabilityErrorStatusIsLoggedWithTheSlot() {
        CGalleryIT.assumeNodeTests();
        KitReport report = validatedBroken("capability_error", "CGalleryCapabilityErrorExecutionProvider",
                Set.of("getcapability"));
        // a failing status is the EP's right: the layer names the slot; the kit's check is what fails
        assertVerdict(report, "getcapability.fallback-on", Verdict.FAIL, "fail with the EP first",
                "STATUS in OrtEp::GetCapability: EP_FAIL");
    }

    @Test
    void sharedScratchBufferIsFlaggedByTheKitBehindTheLayer() {
        KitReport report = validatedBroken("not_thread_safe", "CGalleryNotThreadSafeExecutionProvider", Set.of("concurrency"));
        assertVerdict(report, "concurrency.shared-session", Verdict.FAIL, "differ from the serial Run");
    }

    @Test
    void wrongAddIsStillFlaggedByTheNodeTests() {
        CGalleryIT.assumeNodeTests();
        KitReport report = validatedBroken("wrong_add", "CGalleryWrongAddExecutionProvider", Set.of("correctness"));
        assertVerdict(report, "correctness.node-tests", Verdict.FAIL, "where ORT's CPU EP is right");
        assertFalse(report.result("correctness.node-tests").reason().contains("validation layer saw"),
                "a wrong number is invisible to the layer: " + report.result("correctness.node-tests"));
    }

    @Test
    void cyclicGroupIsFlaggedByTheKitTheLayerSeesNoViolation() {
        KitReport report = validatedBroken("cycle_claim", "CGalleryCycleClaimExecutionProvider", Set.of("getcapability"));
        // the claim is a well-formed call (AddNodesToFuse with nodes of the graph); ORT judges the group, not the layer
        assertVerdict(report, "getcapability.no-cycles", Verdict.FAIL, "cannot be fused together");
        assertFalse(report.result("getcapability.no-cycles").reason().contains("validation layer saw"),
                report.result("getcapability.no-cycles")::toString);
    }

    @Test
    void badMemoryInfoIsFlaggedByTheKitTheLayerSeesNothing() {
        KitReport report = validatedBroken("bad_memory_info", "CGalleryBadMemoryInfoExecutionProvider", Set.of("registration"));
        // the memory info is made with ORT's own CreateMemoryInfo_V2 and handed to EpDevice_AddAllocatorInfo: calls
        // into ORT, which the layer does not proxy; what it describes is the kit's to judge
        assertVerdict(report, "registration.memory-infos", Verdict.FAIL, "DEFAULT memory on GPU for a CPU device");
        assertVerdict(report, "registration.ort-invariants", Verdict.FAIL, "empty name");
        for (CheckResult result : report.results()) {
            assertFalse(result.reason().contains("validation layer saw"), result::toString);
        }
    }

    @Test
    void nativeLeakIsStillFlaggedByTheTrend() {
        KitReport report = validatedBroken("leak_per_session", "CGalleryLeakPerSessionExecutionProvider", Set.of("lifecycle"));
        assertVerdict(report, "lifecycle.session-cycles", Verdict.FAIL, "RSS outside the Java heap grows");
    }
}
