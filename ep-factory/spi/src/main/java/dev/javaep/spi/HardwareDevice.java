package dev.javaep.spi;

import java.util.Map;

/**
 * A piece of hardware ORT discovered, or one an EP found itself that ORT did not (a GPU on a cloud
 * VM without DRM nodes, say).
 *
 * @param handle opaque identity of ORT's {@code OrtHardwareDevice}, 0 for a device the EP found
 *               itself (the bridge then creates it with {@code OrtEpApi::CreateHardwareDevice});
 *               an EP author never needs its value
 */
public record HardwareDevice(
        HardwareDeviceType type,
        int vendorId,
        int deviceId,
        String vendor,
        Map<String, String> metadata,
        long handle) {

    /** PCI vendor id of NVIDIA. */
    public static final int VENDOR_NVIDIA = 0x10de;

    public HardwareDevice {
        metadata = Map.copyOf(metadata);
    }

    /** A device ORT's discovery did not report; offering it makes ORT list it like its own. */
    public static HardwareDevice foundByEp(HardwareDeviceType type, int vendorId, int deviceId, String vendor,
                                           Map<String, String> metadata) {
        return new HardwareDevice(type, vendorId, deviceId, vendor, metadata, 0L);
    }

    /** Whether ORT's own device discovery reported this device. */
    public boolean discoveredByOrt() {
        return handle != 0L;
    }
}
