package dev.javaep.spi;

import java.util.List;
import java.util.Map;

/**
 * A factory's answer to "can you run on this device?": the device, what ORT shows apps about the
 * pairing ({@code OrtEpDevice} metadata and default EP options), and the memory the EP uses there.
 * ORT adds the "version" metadata key itself from the factory's version; do not set it.
 *
 * @param memorySpaces device memory the EP's kernels read and write; empty for an EP that works on
 *                     host memory (ORT then gives it ordinary CPU tensors). Each needs an allocator
 *                     from {@link ExecutionProviderFactory#createAllocator}.
 */
public record DeviceOffer(HardwareDevice device, Map<String, String> metadata, Map<String, String> options,
                          List<MemorySpace> memorySpaces) {
    public DeviceOffer {
        metadata = Map.copyOf(metadata);
        options = Map.copyOf(options);
        memorySpaces = List.copyOf(memorySpaces);
        if (metadata.containsKey("version")) {
            throw new IllegalArgumentException("EP device metadata must not contain 'version': ORT sets it from the factory's version()");
        }
        if (memorySpaces.stream().filter(s -> s.location().kind() == MemoryKind.DEVICE).count() > 1
                || memorySpaces.stream().filter(s -> s.location().kind() == MemoryKind.HOST_ACCESSIBLE).count() > 1) {
            throw new IllegalArgumentException("an EP device has at most one DEVICE and one HOST_ACCESSIBLE memory space");
        }
    }

    /** An offer for a host-memory EP. */
    public DeviceOffer(HardwareDevice device, Map<String, String> metadata, Map<String, String> options) {
        this(device, metadata, options, List.of());
    }

    public static DeviceOffer of(HardwareDevice device) {
        return new DeviceOffer(device, Map.of(), Map.of());
    }

    /** Whether the EP's kernels see host memory (no device memory space offered). */
    public boolean usesHostMemory() {
        return memorySpaces.stream().noneMatch(s -> s.location().kind() == MemoryKind.DEVICE);
    }
}
