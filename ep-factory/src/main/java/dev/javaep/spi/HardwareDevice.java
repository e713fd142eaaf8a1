package dev.javaep.spi;

import java.util.Map;

/**
 * A piece of hardware ORT discovered (or javaep created for ORT), as offered to a factory.
 *
 * @param handle opaque identity of ORT's {@code OrtHardwareDevice}; the bridge uses it to answer ORT,
 *               an EP author never needs it
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
}
