package dev.javaep.spi;

/** {@code OrtHardwareDeviceType}. */
public enum HardwareDeviceType {
    CPU, GPU, NPU;

    public static HardwareDeviceType fromOrt(int value) {
        return switch (value) {
            case 0 -> CPU;
            case 1 -> GPU;
            case 2 -> NPU;
            default -> throw new IllegalArgumentException("unknown OrtHardwareDeviceType " + value);
        };
    }
}
