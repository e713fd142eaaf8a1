package dev.javaep.spi;

import java.util.List;
import java.util.Map;

/**
 * A factory whose EP runs on the host CPU over ORT's ordinary host tensors: it is offered on every CPU
 * device ORT found, with {@link #offerMetadata()}. What is left to write is the name, vendor, version and
 * {@link #createExecutionProvider}.
 */
public interface HostExecutionProviderFactory extends ExecutionProviderFactory {
    /** The {@code OrtEpDevice} metadata apps see for this EP (never "version": ORT sets it). */
    default Map<String, String> offerMetadata() {
        return Map.of();
    }

    @Override
    default List<DeviceOffer> supportedDevices(List<HardwareDevice> devices) {
        return devices.stream()
                .filter(d -> d.type() == HardwareDeviceType.CPU)
                .map(d -> new DeviceOffer(d, offerMetadata(), Map.of()))
                .toList();
    }
}
