package dev.javaep.host;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Optional;

/**
 * An {@code OrtEpDevice}: an execution provider paired with a hardware device.
 *
 * @param handle the ORT object (owned by the environment; valid while the EP's library is registered)
 * @param hardwareType "CPU", "GPU" or "NPU"
 */
public record EpDevice(MemorySegment handle, String epName, String epVendor, Map<String, String> epMetadata,
                       Map<String, String> epOptions, String hardwareType, int hardwareVendorId,
                       String hardwareVendor, Map<String, String> hardwareMetadata) {
    private static final String[] HARDWARE_TYPES = {"CPU", "GPU", "NPU"};

    /** Reads an {@code OrtEpDevice*} ORT handed out. */
    static EpDevice of(OrtApi api, MemorySegment device) {
        var table = api.table();
        String name = OrtApi.cString(table.call(OrtApiSlot.EpDevice_EpName, device));
        String vendor = OrtApi.cString(table.call(OrtApiSlot.EpDevice_EpVendor, device));
        var metadata = api.keyValuePairs(table.call(OrtApiSlot.EpDevice_EpMetadata, device));
        var options = api.keyValuePairs(table.call(OrtApiSlot.EpDevice_EpOptions, device));
        MemorySegment hardware = table.call(OrtApiSlot.EpDevice_Device, device);
        int type = api.hardwareDeviceType(hardware);
        return new EpDevice(device, name, vendor, metadata, options,
                type >= 0 && type < HARDWARE_TYPES.length ? HARDWARE_TYPES[type] : "UNKNOWN(" + type + ")",
                api.hardwareDeviceVendorId(hardware), api.hardwareDeviceVendor(hardware),
                api.hardwareDeviceMetadata(hardware));
    }

    /**
     * {@code EpDevice_MemoryInfo}: the memory info the EP registered for this device and memory type
     * (borrowed: ORT owns it for as long as the EP device exists), or empty when the EP registered none
     * (host-memory EPs usually do not).
     */
    public Optional<MemoryInfo> memoryInfo(DeviceMemoryType memoryType) {
        OrtApi api = OrtHost.shared().api();
        try {
            MemorySegment info = (MemorySegment) api.table().handle(OrtApiSlot.EpDevice_MemoryInfo)
                    .invokeExact(handle, memoryType.value());
            return Optional.ofNullable(MemoryInfo.borrowed(api, info));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    @Override
    public String toString() {
        return epName + " (" + epVendor + ") on " + hardwareType + " " + hardwareVendor;
    }
}
