package dev.javaep.bridge;

import dev.javaep.ort.OrtEpApi;
import dev.javaep.spi.HardwareDeviceType;
import dev.javaep.spi.MemoryKind;
import dev.javaep.spi.MemoryLocation;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;

/** Reads ORT's {@code OrtMemoryDevice} into a {@link MemoryLocation}. */
final class MemoryLocations {
    private MemoryLocations() {}

    /** {@code OrtMemoryInfoDeviceType} → the SPI's device type (FPGA has no SPI type and is refused). */
    static MemoryLocation of(OrtEpApi epApi, MemorySegment memoryDevice) {
        OrtEpApi.MemoryDevice device = epApi.memoryDevice(memoryDevice);
        HardwareDeviceType type = switch (device.deviceType()) {
            case 0 -> HardwareDeviceType.CPU;
            case 1 -> HardwareDeviceType.GPU;
            case 3 -> HardwareDeviceType.NPU;
            default -> throw new IllegalArgumentException("javaep: memory device type " + device.deviceType()
                    + " (FPGA or newer) is not supported");
        };
        return new MemoryLocation(type, MemoryKind.fromOrt(device.memoryType()), device.vendorId(), device.deviceId());
    }

    private record ReferenceKey(long api, MemoryLocation location) {}

    /** Memory infos javaep made to compare devices with, one per runtime and location; never released (a few bytes each). */
    private static final ConcurrentHashMap<ReferenceKey, MemorySegment> REFERENCES = new ConcurrentHashMap<>();

    /**
     * An {@code OrtMemoryDevice} at {@code location} that lives as long as the process (it belongs to a memory info javaep
     * made for it), to compare a tensor's device with in one call ({@code MemoryDevice_AreEqual}) instead of reading
     * its four fields. A tensor's own device pointer cannot serve: it lives inside that tensor.
     */
    static MemorySegment reference(OrtRuntime runtime, MemoryLocation location) {
        return REFERENCES.computeIfAbsent(new ReferenceKey(runtime.api().address().address(), location),
                key -> runtime.epApi().memoryInfoMemoryDevice(runtime.api().createMemoryInfoV2("javaep-location-reference",
                        ortDeviceType(location.deviceType()), location.vendorId(), location.deviceId(),
                        location.kind().ortValue(), 0, 0)));
    }

    /** The {@code OrtMemoryInfoDeviceType} value of a device type. */
    static int ortDeviceType(HardwareDeviceType type) {
        return switch (type) {
            case CPU -> 0;
            case GPU -> 1;
            case NPU -> 3;
        };
    }
}
