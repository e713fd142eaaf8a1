package dev.javaep.host;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.javaep.ort.OrtAllocatorStruct;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import java.lang.foreign.Arena;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;

/**
 * An {@code OrtAllocator}. <b>Owned</b> allocators come from {@link Session#allocator(MemoryInfo)}
 * ({@code CreateAllocator}) and are released by {@link #close()}; <b>borrowed</b> ones are ORT's own
 * ({@link #defaultCpu()}, {@link OrtEnvironment#sharedAllocator(MemoryInfo)}), live as long as ORT
 * (or the environment) keeps them, and closing one only ends this Java view.
 *
 * <p>A tensor {@linkplain OrtTensor#allocate allocated} from an allocator frees its memory through it,
 * so an owned allocator counts such tensors and refuses to close while any is open.
 */
public final class Allocator implements AutoCloseable {
    private final OrtApi api;
    private final boolean owned;
    private final Consumer<AutoCloseable> onClose; // tells the owning session this allocator is gone
    private MemorySegment allocator;
    private int openTensors;

    private Allocator(OrtApi api, MemorySegment allocator, boolean owned, Consumer<AutoCloseable> onClose) {
        this.api = api;
        this.allocator = allocator;
        this.owned = owned;
        this.onClose = onClose;
    }

    /** ORT's process-wide CPU allocator ({@code GetAllocatorWithDefaultOptions}); borrowed. */
    public static Allocator defaultCpu() {
        OrtApi api = OrtHost.shared().api();
        return new Allocator(api, defaultCpuHandle(api), false, closed -> {});
    }

    static MemorySegment defaultCpuHandle(OrtApi api) {
        return OrtCalls.pointerOut(api, OrtApiSlot.GetAllocatorWithDefaultOptions);
    }

    static Allocator owned(OrtApi api, MemorySegment allocator, Consumer<AutoCloseable> onClose) {
        return new Allocator(api, allocator, true, onClose);
    }

    static Allocator borrowed(OrtApi api, MemorySegment allocator) {
        return new Allocator(api, allocator, false, closed -> {});
    }

    /** Whether {@link #close()} releases the native allocator. */
    public boolean isOwned() {
        return owned;
    }

    /** The {@code OrtAllocator*}. */
    public MemorySegment handle() {
        return OrtCalls.live(allocator, "Allocator");
    }

    /** Where this allocator's memory lives ({@code AllocatorGetInfo}); borrowed from the allocator. */
    public MemoryInfo memoryInfo() {
        return MemoryInfo.borrowed(api, OrtCalls.pointerOut(api, OrtApiSlot.AllocatorGetInfo, handle()));
    }

    /**
     * The allocator's statistics: its own {@code GetStats} member (API 23), which is all ORT's
     * {@code AllocatorGetStats} calls. ORT's arenas and the allocators of EPs that keep statistics answer keys
     * such as {@code InUse}, {@code TotalAllocated}, {@code MaxInUse} (bytes) and {@code NumAllocs}, as decimal
     * strings; the keys are the allocator's choice. Empty when the allocator's struct predates API 23 or leaves
     * GetStats NULL (ORT treats it as optional).
     *
     * @throws dev.javaep.ort.OrtException when GetStats answers an error status
     */
    public Optional<Map<String, String>> stats() {
        MemorySegment struct = handle().reinterpret(OrtAllocatorStruct.SIZE);
        if (struct.get(JAVA_INT, 0) < OrtAllocatorStruct.GetStats.since()) {
            return Optional.empty(); // the version field: a shorter struct has no GetStats to read
        }
        MemorySegment getStats = struct.get(ADDRESS, OrtAllocatorStruct.GetStats.byteOffset());
        if (getStats.equals(MemorySegment.NULL)) {
            return Optional.empty();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            api.check((MemorySegment) Linker.nativeLinker()
                    .downcallHandle(getStats, OrtAllocatorStruct.GetStats.descriptor()).invokeExact(struct, out));
            MemorySegment pairs = out.get(ADDRESS, 0);
            try {
                return Optional.of(api.keyValuePairs(pairs));
            } finally {
                if (!pairs.equals(MemorySegment.NULL)) {
                    api.releaseKeyValuePairs(pairs);
                }
            }
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** {@code AllocatorFree}: returns memory this allocator handed out (names, output arrays). */
    void free(MemorySegment pointer) {
        api.check(api.table().call(OrtApiSlot.AllocatorFree, handle(), pointer));
    }

    synchronized void tensorOpened() {
        handle();
        openTensors++;
    }

    synchronized void tensorClosed() {
        openTensors--;
    }

    /**
     * Releases an owned allocator (a borrowed one: ends this view).
     *
     * @throws IllegalStateException while tensors allocated from it are open: close them first
     */
    @Override
    public synchronized void close() {
        if (allocator == null) {
            return;
        }
        if (owned && openTensors > 0) {
            throw new IllegalStateException("javaep: " + openTensors + " tensor(s) allocated from this allocator are still open;"
                    + " close them before the allocator (their memory is freed through it)");
        }
        if (owned) {
            api.table().callVoid(OrtApiSlot.ReleaseAllocator, allocator);
        }
        allocator = null;
        onClose.accept(this);
    }

    @Override
    public String toString() {
        return allocator == null ? "Allocator[closed]" : "Allocator[" + memoryInfo().describe() + (owned ? "" : ", borrowed") + "]";
    }
}
