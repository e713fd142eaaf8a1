package dev.javaep.spi;

/**
 * Memory for one {@link MemorySpace}, as ORT's {@code OrtAllocator}. Addresses are raw device
 * addresses. Called from any thread; implementations must be thread-safe. Allocation failure
 * returns 0 (ORT reports out of memory) or throws.
 */
public interface DeviceAllocator extends AutoCloseable {
    long allocate(long bytes);

    void free(long address);

    /**
     * Allocates memory first used on {@code streamHandle} (the native stream, e.g. a CUstream), so a
     * stream-ordered allocator can reuse memory without waiting. The default ignores the stream.
     */
    default long allocate(long bytes, long streamHandle) {
        return allocate(bytes);
    }

    /** Memory ORT keeps for the session's lifetime (initializers); defaults to {@link #allocate(long)}. */
    default long reserve(long bytes) {
        return allocate(bytes);
    }

    @Override
    default void close() {}
}
