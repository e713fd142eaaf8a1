package dev.javaep.bridge;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/**
 * The Java object behind one EP-implemented C struct ORT calls back through ({@link CallbackStruct}): it owns the
 * struct's memory, which lives as long as the bridge, and knows the runtime the struct was made for. A subclass
 * registers itself ({@link CallbackStruct#register}) as the last step of its constructor, once every field its
 * upcalls read is set.
 */
abstract class StructBridge {
    final OrtRuntime runtime;
    /** The struct's memory, and what the bridge allocates for as long as the struct lives; freed by {@link #freeStruct}. */
    final Arena arena;
    final MemorySegment struct;
    private final StructMemory memory;

    /**
     * How a bridge's memory is freed once ORT released the struct.
     *
     * <p>{@code SHARED}: a shared arena, closed at the release. Closing a shared arena is a handshake with every Java
     * thread of the process (the JVM makes sure none is inside an access to it): tens of µs, more with many threads,
     * which is nothing for objects made once per session. {@code COLLECTED}: an automatic arena, freed by the GC once
     * the bridge is unreachable. For bridges an app makes per frame (an imported buffer's handle and its tensor deleter,
     * issue 13), where two handshakes were a measurable part of an import. It is as safe as the shared arena: the
     * memory cannot go while a registry (which ORT's callbacks go through) or a tensor's deleter still reaches the
     * bridge, and after ORT's release nothing native uses it; it only goes later, at a GC.
     */
    enum StructMemory { SHARED, COLLECTED }

    StructBridge(CallbackStruct<?, ?> type, OrtRuntime runtime) {
        this(type, runtime, StructMemory.SHARED);
    }

    StructBridge(CallbackStruct<?, ?> type, OrtRuntime runtime, StructMemory memory) {
        this.runtime = runtime;
        this.memory = memory;
        this.arena = switch (memory) {
            case SHARED -> Arena.ofShared();
            case COLLECTED -> Arena.ofAuto();
        };
        this.struct = type.allocate(arena, runtime.apiVersion());
    }

    /** The last step of a release: frees the struct now ({@code SHARED}), or leaves it to the GC ({@code COLLECTED}). */
    final void freeStruct() {
        if (memory == StructMemory.SHARED) {
            arena.close();
        }
    }

    /**
     * What ORT's Release of the struct closes before the struct's memory goes ({@link CallbackStruct#releaseAndClose}):
     * the object the bridge is in front of. Nothing by default.
     */
    void onRelease() {}
}
