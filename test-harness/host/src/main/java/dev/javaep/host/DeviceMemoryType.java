package dev.javaep.host;

/**
 * {@code OrtDeviceMemoryType}: the device's own memory, or memory on (or mapped to) the host that the
 * device can reach (pinned memory). ORT accepts only these two; the gap in the values is ORT's.
 */
public enum DeviceMemoryType {
    DEFAULT(0),
    HOST_ACCESSIBLE(5);

    private final int value;

    DeviceMemoryType(int value) {
        this.value = value;
    }

    /** The C enum value. */
    public int value() {
        return value;
    }

    public static DeviceMemoryType of(int value) {
        for (DeviceMemoryType type : values()) {
            if (type.value == value) {
                return type;
            }
        }
        throw new IllegalArgumentException("unknown OrtDeviceMemoryType " + value);
    }
}
