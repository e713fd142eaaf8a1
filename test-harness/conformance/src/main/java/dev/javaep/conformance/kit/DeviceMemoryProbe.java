package dev.javaep.conformance.kit;

import dev.javaep.host.Allocator;
import dev.javaep.host.DeviceMemoryType;
import dev.javaep.host.EpDevice;
import dev.javaep.host.MemoryInfo;
import dev.javaep.host.OrtEnvironment;
import java.util.Map;
import java.util.Optional;

/**
 * Where the session-cycle trend reads the EP's device memory, chosen once per run, and the reason where it cannot:
 * <ul>
 * <li>vendor-neutral: the {@code InUse} bytes of the EP's device allocator ({@code GetSharedAllocator} of the EP
 * device's DEFAULT memory info, through {@code OrtAllocator::GetStats}), where that allocator keeps statistics;
 * <li>NVIDIA: NVML's figure for this process; where NVML does not list it (another PID namespace), the used memory of
 * the EP's GPU, which on a GPU the kit has to itself trends the same (the message says which).
 * </ul>
 * A CPU EP has no device memory: {@link #none} says so instead of measuring.
 */
final class DeviceMemoryProbe implements AutoCloseable {
    /** The allocator statistic trended: bytes handed out and not yet freed (ORT's arenas and most EPs call it so). */
    static final String IN_USE = "InUse";

    /** A probe that reads nothing, for cycle runs without a device (registration cycles, the study). */
    static final DeviceMemoryProbe NONE = none("");

    /** NVML, the GPU it reads where this process is not listed, and why there is no NVML (when {@code nvml} is null). */
    private record NvmlSource(Nvml nvml, String device, String absent) {}

    /** The EP's shared device allocator, what it is, and why there is none (when {@code allocator} is null). */
    private record AllocatorSource(Allocator allocator, String source, String absent) {}

    private final NvmlSource nvml;
    private final AllocatorSource allocator;
    /** Set for a CPU EP: what the trend line says instead of device memory. */
    private final String noneReason;
    /** Fixed at the first reading: NVML's per-process figure, else the GPU's used memory. */
    private Boolean nvmlPerProcess;
    /** Whether any reading of the allocator's statistics had {@link #IN_USE}. */
    private boolean sawInUse;

    private DeviceMemoryProbe(NvmlSource nvml, AllocatorSource allocator, String noneReason) {
        this.nvml = nvml;
        this.allocator = allocator;
        this.noneReason = noneReason;
    }

    /** No measurement, with the reason the trend line gives. */
    static DeviceMemoryProbe none(String reason) {
        return new DeviceMemoryProbe(new NvmlSource(null, "", ""), new AllocatorSource(null, "", ""), reason);
    }

    /** The sources that exist for {@code device}'s EP here; {@link #none} for a CPU EP. */
    static DeviceMemoryProbe of(OrtEnvironment env, EpDevice device) {
        if (device.hardwareType().equals("CPU")) {
            return none("none (CPU EP)");
        }
        Optional<String> uuid = Optional.ofNullable(device.epMetadata().get("cuda.uuid"));
        Nvml.Opening opening = Nvml.open(uuid);
        Nvml nvml = opening.nvml().orElse(null);
        String nvmlDevice = nvml == null ? "" : nvml.deviceName().orElse("");
        String allocatorAbsent = "";
        Allocator allocator = null;
        Optional<MemoryInfo> info = device.memoryInfo(DeviceMemoryType.DEFAULT);
        if (info.isEmpty() || info.get().isHostAccessible()) {
            allocatorAbsent = "the EP device registers no device memory";
        } else {
            try {
                allocator = env.sharedAllocator(info.get()).orElse(null);
                if (allocator == null) {
                    allocatorAbsent = "no shared allocator for " + info.get().name();
                } else if (allocator.stats().isEmpty()) {
                    allocatorAbsent = "the EP's allocator keeps none (GetStats NULL)";
                    allocator = null;
                }
            } catch (RuntimeException e) { // an OrtException, or a runtime without the call: the probe fails soft
                allocatorAbsent = "GetSharedAllocator/GetStats failed: " + e.getMessage();
                allocator = null;
            }
        }
        String allocatorSource = allocator == null ? "" : "the EP's shared allocator on " + info.get().name();
        return new DeviceMemoryProbe(new NvmlSource(nvml, nvmlDevice, opening.reason()),
                new AllocatorSource(allocator, allocatorSource, allocatorAbsent), "");
    }

    /**
     * {@code InUse} of the allocator's statistics; 0 where they have no entries at all (ORT's wrapper of an allocator
     * reports nothing while nothing was allocated and no limit is set); empty where entries exist without it.
     */
    private static Optional<Long> inUse(Map<String, String> stats) {
        if (stats.isEmpty()) {
            return Optional.of(0L);
        }
        try {
            return Optional.ofNullable(stats.get(IN_USE)).map(value -> Long.parseLong(value.trim()));
        } catch (NumberFormatException e) {
            return Optional.empty();
        }
    }

    /** The EP's device memory in KiB from NVML (this process, else its GPU), -1 without NVML. */
    long deviceUsedKib() {
        Nvml library = nvml.nvml();
        if (library == null) {
            return -1;
        }
        long pid = ProcessHandle.current().pid();
        if (nvmlPerProcess == null) {
            nvmlPerProcess = library.processUsedBytes(pid).isPresent();
        }
        Optional<Long> bytes = nvmlPerProcess ? library.processUsedBytes(pid) : library.deviceUsedBytes();
        return bytes.map(b -> b >> 10).orElse(-1L);
    }

    /** The {@code InUse} of the EP's device allocator in KiB, -1 where it keeps no statistics. */
    long allocatorInUseKib() {
        if (allocator.allocator() == null) {
            return -1;
        }
        Map<String, String> stats;
        try {
            stats = allocator.allocator().stats().orElse(Map.of());
        } catch (RuntimeException e) {
            return -1; // a reading that failed: the trend line says the figure was not read at every sample
        }
        sawInUse |= stats.containsKey(IN_USE);
        return inUse(stats).map(bytes -> bytes >> 10).orElse(-1L);
    }

    /**
     * What the two figures of a sample are, for the trend line; read after the first {@link #deviceUsedKib} (which
     * fixes NVML's source).
     *
     * @param nvml      NVML's source ({@link ProcessSample#deviceUsedKib}), "" without NVML
     * @param allocator the allocator whose {@code InUse} {@link ProcessSample#allocatorInUseKib} is, "" without one
     * @param none      "" when either was read; otherwise what the line says instead of device memory
     */
    record Labels(String nvml, String allocator, String none) {
        static final Labels NONE = new Labels("", "", "");
    }

    Labels labels() {
        if (this == NONE) {
            return Labels.NONE;
        }
        String nvmlLabel = "";
        if (nvml.nvml() != null) {
            nvmlLabel = Boolean.TRUE.equals(nvmlPerProcess) ? "NVML, this process"
                    : nvml.device().isEmpty() ? "NVML lists neither this process nor one GPU to read"
                    : "NVML, all of " + nvml.device() + ": this pid is not in NVML's list (a PID namespace)";
        }
        String allocatorLabel = sawInUse ? allocator.source() : "";
        String none = noneReason;
        if (none.isEmpty() && nvmlLabel.isEmpty() && allocatorLabel.isEmpty()) {
            none = "not measured (" + nvml.absent() + "; allocator statistics: " + (allocator.allocator() == null
                    ? allocator.absent() : "GetStats of " + allocator.source() + " named no " + IN_USE + " at any sample") + ")";
        }
        return new Labels(nvmlLabel, allocatorLabel, none);
    }

    @Override
    public void close() {
        if (nvml.nvml() != null) {
            nvml.nvml().close();
        }
        if (allocator.allocator() != null) {
            allocator.allocator().close(); // borrowed: ends the view only
        }
    }
}
