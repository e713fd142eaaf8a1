package dev.javaep.bridge;

import dev.javaep.ort.OrtEpApi;
import dev.javaep.spi.HardwareDeviceType;
import dev.javaep.spi.MemoryKind;
import dev.javaep.spi.MemoryLocation;
import java.lang.foreign.MemorySegment;

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

    /** The {@code OrtMemoryInfoDeviceType} value of a device type. */
    static int ortDeviceType(HardwareDeviceType type) {
        return switch (type) {
            case CPU -> 0;
            case GPU -> 1;
            case NPU -> 3;
        };
    }
}
