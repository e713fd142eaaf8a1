package dev.javaep.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.host.EpDevice;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.Test;

/**
 * The device-memory part of {@code lifecycle.session-cycles} on synthetic samples: what the trend line says, and what
 * the verdict flags (a steady growth past the limit, from either source), and what it lets pass (warm-up growth, one
 * step of the driver's allocator, a CPU EP, readings that failed); plus NVML failing soft and the UUID an EP device
 * names for Vulkan.
 */
class DeviceMemoryTrendTest {
    private static final int SAMPLES = 40;
    private static final int EVERY = 5;
    private static final LifecycleChecks.Limits LIMITS = LifecycleChecks.Limits.session(LifecycleChecks.SESSION_HEAP_KIB);
    private static final DeviceMemoryProbe.Labels NVML_AND_ALLOCATOR =
            new DeviceMemoryProbe.Labels("NVML, this process", "the EP's shared allocator on Cuda", "");

    /** {@link #SAMPLES} samples, every {@link #EVERY} cycles, with flat host figures and the given device ones. */
    private static List<ProcessSample> samples(IntToLongFunction deviceKib, IntToLongFunction allocatorKib) {
        List<ProcessSample> samples = new ArrayList<>();
        for (int i = 0; i < SAMPLES; i++) {
            samples.add(new ProcessSample(200_000, 50_000, 10_000, 40, 30, 8_000, 2_000, deviceKib.applyAsLong(i),
                    allocatorKib.applyAsLong(i)));
        }
        return samples;
    }

    private static List<String> over(List<ProcessSample> samples, DeviceMemoryProbe.Labels labels) {
        return LifecycleChecks.overLimits(samples, EVERY, "session", LIMITS, labels);
    }

    @Test
    void flatDeviceMemoryPassesAndTheLineGivesBothSources() {
        List<ProcessSample> samples = samples(i -> 600_000, i -> 4_096);
        assertEquals(List.of(), over(samples, NVML_AND_ALLOCATOR));
        String line = LifecycleChecks.trend(samples, EVERY, "session", SAMPLES * EVERY, NVML_AND_ALLOCATOR);
        assertTrue(line.startsWith("200 session cycles, per cycle over the second half: device memory (NVML, this process)"
                + " +0.0 KiB (600000 → 600000 KiB); InUse of the EP's shared allocator on Cuda +0.0 KiB (4096 → 4096 KiB);"
                + " RSS outside the heap +0.0 KiB"), line);
    }

    @Test
    void aSteadyDeviceLeakIsFlaggedWithItsSource() {
        // 2 MiB every 10 sessions: 204.8 KiB a session, in the steps NVML reports
        List<ProcessSample> samples = samples(i -> 600_000 + (i / 2) * 2048L, i -> 4_096);
        List<String> over = over(samples, NVML_AND_ALLOCATOR);
        assertEquals(1, over.size(), over::toString);
        assertTrue(over.getFirst().startsWith("device memory (NVML, this process) grows 204.8 KiB per session (limit 64)"),
                over.getFirst());
    }

    @Test
    void anAllocatorThatKeepsGrowingIsFlaggedEvenWhereNvmlIsFlat() {
        List<ProcessSample> samples = samples(i -> 600_000, i -> 4_096 + 100L * EVERY * i);
        List<String> over = over(samples, NVML_AND_ALLOCATOR);
        assertEquals(List.of("InUse of the EP's shared allocator on Cuda grows 100.0 KiB per session (limit 64)"), over);
    }

    @Test
    void warmUpGrowthNvmlsGranularityAndALateStepPass() {
        // the first half grows (caches, the CUDA context's pools); the second goes up and down by NVML's 2 MiB and
        // has one 32 MiB step near its end (a pool the driver grows once)
        List<ProcessSample> samples = samples(i -> i < SAMPLES / 2 ? 500_000 + 5_000L * i
                : 700_000 + (i % 2) * 2_048L + (i >= SAMPLES - 4 ? 32_768 : 0), i -> 4_096);
        assertEquals(List.of(), over(samples, NVML_AND_ALLOCATOR));
    }

    @Test
    void belowTheLimitPasses() {
        List<ProcessSample> samples = samples(i -> 600_000 + 60L * EVERY * i, i -> 4_096 + 60L * EVERY * i);
        assertEquals(List.of(), over(samples, NVML_AND_ALLOCATOR), "60 KiB a session is under 64");
    }

    @Test
    void aCpuEpSaysItHasNoDeviceMemory() {
        DeviceMemoryProbe probe = DeviceMemoryProbe.of(null, device("CPU", Map.of()));
        assertEquals(new DeviceMemoryProbe.Labels("", "", "none (CPU EP)"), probe.labels());
        assertEquals(-1, probe.deviceUsedKib());
        assertEquals(-1, probe.allocatorInUseKib());
        List<ProcessSample> samples = samples(i -> -1, i -> -1);
        assertEquals(List.of(), over(samples, probe.labels()));
        String line = LifecycleChecks.trend(samples, EVERY, "session", SAMPLES * EVERY, probe.labels());
        assertTrue(line.startsWith("200 session cycles, per cycle over the second half: device memory: none (CPU EP); RSS"), line);
    }

    @Test
    void readingsThatFailedAreSaidAndNeverFlagged() {
        List<ProcessSample> samples = samples(i -> i == 30 ? -1 : 600_000 + 1_000_000L * i, i -> 4_096);
        assertEquals(List.of(), over(samples, NVML_AND_ALLOCATOR));
        String line = LifecycleChecks.trend(samples, EVERY, "session", SAMPLES * EVERY, NVML_AND_ALLOCATOR);
        assertTrue(line.contains("second half: device memory (NVML, this process): not read at every sample; InUse of"), line);
    }

    @Test
    void registrationCyclesSayNothingOfDeviceMemory() {
        String line = LifecycleChecks.trend(samples(i -> -1, i -> -1), EVERY, "registration", SAMPLES * EVERY);
        assertFalse(line.contains("device memory"), line);
        assertTrue(line.startsWith("200 registration cycles, per cycle over the second half: RSS outside the heap"), line);
    }

    @Test
    void nvmlFailsSoftWithAReason() {
        Nvml.Opening opening = Nvml.open(Optional.of("GPU-00000000-0000-0000-0000-000000000000"));
        System.out.println("[nvml] " + (opening.nvml().isPresent() ? "present" : opening.reason()));
        opening.nvml().ifPresent(Nvml::close);
        assertTrue(opening.nvml().isEmpty(), "no GPU has the all-zero UUID");
        assertTrue(opening.reason().startsWith("NVML absent") || opening.reason().startsWith("NVML has no GPU with UUID")
                || opening.reason().startsWith("nvmlInit_v2 failed"), opening.reason());
        Nvml.Opening any = Nvml.open(Optional.empty());
        any.nvml().ifPresent(nvml -> {
            assertTrue(nvml.processUsedBytes(ProcessHandle.current().pid()).isEmpty(), "this JVM has no CUDA context");
            nvml.close();
        });
        assertTrue(any.nvml().isPresent() || !any.reason().isEmpty());
    }

    @Test
    void cudaUuidBecomesAVulkanDeviceUuid() {
        Optional<byte[]> uuid = ImporterChecks.deviceUuid(device("GPU", Map.of("cuda.uuid", "GPU-6d657361-3232-2e33-2e36-000000000000")));
        assertEquals("6d65736132322e332e36000000000000", uuid.map(HexFormat.of()::formatHex).orElse("none"));
        assertTrue(ImporterChecks.deviceUuid(device("GPU", Map.of())).isEmpty());
        assertTrue(ImporterChecks.deviceUuid(device("GPU", Map.of("cuda.uuid", "MIG-6d657361-3232-2e33-2e36-000000000000"))).isEmpty());
        assertTrue(ImporterChecks.deviceUuid(device("GPU", Map.of("cuda.uuid", "GPU-not-hex"))).isEmpty());
    }

    private static EpDevice device(String hardwareType, Map<String, String> metadata) {
        return new EpDevice(MemorySegment.NULL, "TestEp", "test", metadata, Map.of(), hardwareType, 0, "test", Map.of());
    }
}
