package dev.javaep.host;

/** {@code OrtAllocatorType}: how an allocator hands out the memory a {@link MemoryInfo} describes. */
public enum AllocatorType {
    INVALID(-1),
    DEVICE(0),
    ARENA(1),
    /** Only for initializers ORT copies once; never for inputs or outputs. */
    READ_ONLY(2);

    private final int value;

    AllocatorType(int value) {
        this.value = value;
    }

    /** The C enum value. */
    public int value() {
        return value;
    }

    public static AllocatorType of(int value) {
        for (AllocatorType type : values()) {
            if (type.value == value) {
                return type;
            }
        }
        throw new IllegalArgumentException("unknown OrtAllocatorType " + value);
    }
}
