package dev.javaep.spi;

import java.util.Map;

/**
 * A factory's answer to "can you run on this device?": the device, plus what ORT shows apps about
 * the pairing ({@code OrtEpDevice} metadata and default EP options). ORT adds the "version" key
 * itself from the factory's version; do not set it.
 */
public record DeviceOffer(HardwareDevice device, Map<String, String> metadata, Map<String, String> options) {
    public DeviceOffer {
        metadata = Map.copyOf(metadata);
        options = Map.copyOf(options);
        if (metadata.containsKey("version")) {
            throw new IllegalArgumentException("EP device metadata must not contain 'version': ORT sets it from the factory's version()");
        }
    }

    public static DeviceOffer of(HardwareDevice device) {
        return new DeviceOffer(device, Map.of(), Map.of());
    }
}
