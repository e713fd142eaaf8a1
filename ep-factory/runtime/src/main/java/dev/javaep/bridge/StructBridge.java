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
    final Arena arena = Arena.ofShared();
    final MemorySegment struct;

    StructBridge(CallbackStruct<?, ?> type, OrtRuntime runtime) {
        this.runtime = runtime;
        this.struct = type.allocate(arena, runtime.apiVersion());
    }

    /**
     * What ORT's Release of the struct closes before the struct's memory goes ({@link CallbackStruct#releaseAndClose}):
     * the object the bridge is in front of. Nothing by default.
     */
    void onRelease() {}
}
