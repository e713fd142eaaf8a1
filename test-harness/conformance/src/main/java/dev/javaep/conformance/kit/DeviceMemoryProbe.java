package dev.javaep.conformance.kit;

import dev.javaep.host.Allocator;
import dev.javaep.host.DeviceMemoryType;
import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.ort.OrtException;
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
    static final DeviceMemoryProbe NONE = new DeviceMemoryProbe(null, "", null, "", "");

    private final Nvml nvml;
    private final String nvmlDevice;
    private final Allocator allocator;
    private final String allocatorSource;
    /** What the trend line says when neither source exists, or "" when one does. */
    private final String noneReason;
    /** Fixed at the first reading: NVML's per-process figure, else the GPU's used memory. */
    private Boolean nvmlPerProcess;

    private DeviceMemoryProbe(Nvml nvml, String nvmlDevice, Allocator allocator, String allocatorSource, String noneReason) {
        this.nvml = nvml;
        this.nvmlDevice = nvmlDevice;
        this.allocator = allocator;
        this.allocatorSource = allocatorSource;
        this.noneReason = noneReason;
    }

    /** No measurement, with the reason the trend line gives. */
    static DeviceMemoryProbe none(String reason) {
        return new DeviceMemoryProbe(null, "", null, "", reason);
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
        String allocatorReason;
        Allocator allocator = null;
        Optional<dev.javaep.host.MemoryInfo> info = device.memoryInfo(DeviceMemoryType.DEFAULT);
        if (info.isEmpty() || info.get().isHostAccessible()) {
            allocatorReason = "the EP device registers no device memory info";
        } else {
            try {
                allocator = env.sharedAllocator(info.get()).orElse(null);
                allocatorReason = allocator == null ? "no shared allocator for " + info.get().name()
                        : inUse(allocator.stats()).isPresent() ? "" : statsAbsent(allocator.stats());
            } catch (OrtException e) {
                allocatorReason = "GetSharedAllocator/GetStats failed: " + e.getMessage();
            }
            if (!allocatorReason.isEmpty()) {
                allocator = null;
            }
        }
        String reason = nvml == null && allocator == null
                ? "not measured (" + opening.reason() + "; allocator statistics: " + allocatorReason + ")" : "";
        String allocatorSource = allocator == null ? "" : "the EP's shared allocator on " + info.get().name();
        return new DeviceMemoryProbe(nvml, nvmlDevice, allocator, allocatorSource, reason);
    }

    private static String statsAbsent(Optional<Map<String, String>> stats) {
        return stats.isEmpty() ? "the EP's allocator keeps none (GetStats NULL)"
                : "its GetStats has no " + IN_USE + " (keys " + stats.get().keySet() + ")";
    }

    private static Optional<Long> inUse(Optional<Map<String, String>> stats) {
        return stats.map(s -> s.get(IN_USE)).flatMap(value -> {
            try {
                return Optional.of(Long.parseLong(value.trim()));
            } catch (NumberFormatException e) {
                return Optional.empty();
            }
        });
    }

    /** The EP's device memory in KiB from NVML (this process, else its GPU), -1 without NVML. */
    long deviceUsedKib() {
        if (nvml == null) {
            return -1;
        }
        if (nvmlPerProcess == null) {
            nvmlPerProcess = nvml.processUsedBytes(ProcessHandle.current().pid()).isPresent();
        }
        Optional<Long> bytes = nvmlPerProcess ? nvml.processUsedBytes(ProcessHandle.current().pid()) : nvml.deviceUsedBytes();
        return bytes.map(b -> b >> 10).orElse(-1L);
    }

    /** The {@code InUse} of the EP's device allocator in KiB, -1 where it keeps no statistics. */
    long allocatorInUseKib() {
        return allocator == null ? -1 : inUse(allocator.stats()).map(b -> b >> 10).orElse(-1L);
    }

    /**
     * What the two figures of a sample are, for the trend line; read after the first {@link #deviceUsedKib} (which
     * fixes NVML's source).
     *
     * @param nvml      NVML's source ({@link ProcessSample#deviceUsedKib}), "" without NVML
     * @param allocator the allocator whose {@code InUse} {@link ProcessSample#allocatorInUseKib} is, "" without one
     * @param none      "" when either exists; otherwise what the line says instead of device memory
     */
    record Labels(String nvml, String allocator, String none) {
        static final Labels NONE = new Labels("", "", "");
    }

    Labels labels() {
        String nvmlLabel = "";
        if (nvml != null) {
            nvmlLabel = Boolean.TRUE.equals(nvmlPerProcess) ? "NVML, this process"
                    : nvmlDevice.isEmpty() ? "NVML lists neither this process nor one GPU to read"
                    : "NVML, all of " + nvmlDevice + ": this pid is not among NVML's processes (another PID namespace)";
        }
        return new Labels(nvmlLabel, allocatorSource, noneReason);
    }

    @Override
    public void close() {
        if (nvml != null) {
            nvml.close();
        }
        if (allocator != null) {
            allocator.close(); // borrowed: ends the view only
        }
    }
}
