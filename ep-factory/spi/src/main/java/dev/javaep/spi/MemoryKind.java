package dev.javaep.spi;

/** {@code OrtDeviceMemoryType}: the kind of memory on a device. */
public enum MemoryKind {
    /** The device's own memory (GPU VRAM); the host cannot dereference it. */
    DEVICE(0),
    /** Device-side memory the host can read and write (e.g. CUDA pinned host memory). */
    HOST_ACCESSIBLE(5);

    private final int ortValue;

    MemoryKind(int ortValue) {
        this.ortValue = ortValue;
    }

    public int ortValue() {
        return ortValue;
    }

    public static MemoryKind fromOrt(int value) {
        return switch (value) {
            case 0 -> DEVICE;
            case 5 -> HOST_ACCESSIBLE;
            default -> throw new IllegalArgumentException("unknown OrtDeviceMemoryType " + value);
        };
    }
}
