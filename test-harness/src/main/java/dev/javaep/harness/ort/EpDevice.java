package dev.javaep.harness.ort;

import java.lang.foreign.MemorySegment;
import java.util.Map;

/**
 * An {@code OrtEpDevice}: an execution provider paired with a hardware device.
 *
 * @param handle the ORT object (owned by the environment)
 * @param hardwareType "CPU", "GPU" or "NPU"
 */
public record EpDevice(MemorySegment handle, String epName, String epVendor, Map<String, String> epMetadata,
                       Map<String, String> epOptions, String hardwareType, int hardwareVendorId,
                       String hardwareVendor, Map<String, String> hardwareMetadata) {
    @Override
    public String toString() {
        return epName + " (" + epVendor + ") on " + hardwareType + " " + hardwareVendor;
    }
}
