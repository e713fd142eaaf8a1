package dev.javaep.spi;

/**
 * Where bytes live, as ORT describes it ({@code OrtMemoryDevice}): the device type, the kind of
 * memory, and the device's vendor and id. Host memory is {@link #HOST}.
 *
 * @param deviceId the EP's own device number (for CUDA, the device ordinal)
 */
public record MemoryLocation(HardwareDeviceType deviceType, MemoryKind kind, int vendorId, int deviceId) {
    /** Ordinary host memory, as ORT's CPU allocator reports it. */
    public static final MemoryLocation HOST = new MemoryLocation(HardwareDeviceType.CPU, MemoryKind.DEVICE, 0, 0);

    /** Whether the host can dereference an address in this location. */
    public boolean hostAccessible() {
        return deviceType == HardwareDeviceType.CPU || kind == MemoryKind.HOST_ACCESSIBLE;
    }

    public boolean isHost() {
        return deviceType == HardwareDeviceType.CPU;
    }
}
