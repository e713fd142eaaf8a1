package dev.javaep.host;

/** {@code OrtMemoryInfoDeviceType}: which kind of device a piece of memory lives on. */
public enum MemoryDeviceType {
    CPU(0),
    GPU(1),
    FPGA(2),
    NPU(3);

    private final int value;

    MemoryDeviceType(int value) {
        this.value = value;
    }

    /** The C enum value. */
    public int value() {
        return value;
    }

    public static MemoryDeviceType of(int value) {
        for (MemoryDeviceType type : values()) {
            if (type.value == value) {
                return type;
            }
        }
        throw new IllegalArgumentException("unknown OrtMemoryInfoDeviceType " + value);
    }
}
