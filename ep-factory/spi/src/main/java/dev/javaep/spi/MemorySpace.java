package dev.javaep.spi;

/**
 * A kind of memory an EP device offers ORT, backed by an allocator the factory creates
 * ({@link ExecutionProviderFactory#createAllocator}). ORT allocates the EP's inputs, outputs and
 * intermediates there, and apps bind outputs to it ({@code BindOutputToDevice}).
 *
 * @param name      the {@code OrtMemoryInfo} name apps see, e.g. "JavaCuda"
 * @param alignment required alignment in bytes, 0 for the default
 */
public record MemorySpace(String name, MemoryLocation location, long alignment) {
    public MemorySpace {
        if (name == null || name.isBlank()) {
            throw new IllegalArgumentException("a memory space needs a name");
        }
        if (location.isHost()) {
            throw new IllegalArgumentException("memory space '" + name + "': host memory is ORT's own; "
                    + "offer device memory (DEVICE or HOST_ACCESSIBLE on the EP's device)");
        }
    }
}
