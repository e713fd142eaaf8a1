package dev.javaep.cuda.kernel;

import dev.javaep.cuda.kernel.ptx.LaunchShape;
import dev.javaep.spi.ElementType;
import java.util.function.LongFunction;

/**
 * One CUDA C kernel of a node, resolved to its {@code CUfunction} once per specialisation and reused by every launch
 * after: a launch with the specialisation it saw last (the usual case: a node sees the same element types Run after
 * Run) builds no {@link CudaSource} (a string of several KiB), hashes nothing and allocates nothing. The
 * specialisation is a {@code long} key the node packs from what its source depends on ({@link #key}); {@code source}
 * turns a key back into the source on a miss.
 *
 * <p>Safe for concurrent Runs: the resolved function is one immutable record swapped as a whole; two threads that
 * miss at once both resolve, to the same function ({@link CudaKernelLibrary} compiles a source once per device).
 */
public final class KernelSlot {
    private record Resolved(CudaKernelLibrary library, long key, long function, String entry) {}

    private static final ElementType[] TYPES = ElementType.values();

    private final LongFunction<CudaSource> source;
    private volatile Resolved resolved;

    /** {@code source}: the kernel of a key (called on a miss only; it may throw for a key no kernel takes). */
    public KernelSlot(LongFunction<CudaSource> source) {
        this.source = source;
    }

    /** Queues the kernel of {@code key} on {@code stream}, resolving it on {@code kernels}' device on a miss. */
    public void launch(CudaKernelLibrary kernels, long key, LaunchShape shape, int sharedBytes, long stream,
                       KernelArguments args) {
        Resolved r = resolved;
        if (r == null || r.library != kernels || r.key != key) {
            CudaSource code = source.apply(key);
            r = new Resolved(kernels, key, kernels.function(code), code.entry());
            resolved = r;
        }
        kernels.launch(r.function, r.entry, shape, sharedBytes, stream, args);
    }

    /** The key of a kernel specialised by one element type. */
    public static long key(ElementType a) {
        return a.ordinal();
    }

    /** The key of a kernel specialised by two element types. */
    public static long key(ElementType a, ElementType b) {
        return a.ordinal() | (long) b.ordinal() << 8;
    }

    /** The key of a kernel specialised by three element types. */
    public static long key(ElementType a, ElementType b, ElementType c) {
        return key(a, b) | (long) c.ordinal() << 16;
    }

    /** Element type {@code position} (0, 1, 2) of a key made by {@link #key}. */
    public static ElementType type(long key, int position) {
        return TYPES[(int) (key >>> (8 * position)) & 0xFF];
    }
}
