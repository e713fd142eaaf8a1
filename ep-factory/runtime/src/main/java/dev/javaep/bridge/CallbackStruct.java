package dev.javaep.bridge;

import dev.javaep.ort.CallbackSlot;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Set;

/**
 * One EP-implemented C struct type: the shared upcall stubs, the allocation of instances (zero-filled at the
 * struct's full API-29 size, version field set, only the callbacks the bridge implements non-NULL), and the registry
 * that maps an instance's address back to its bridge (this is that {@link HandleRegistry}, named after the struct).
 * Stubs are created once per process and never freed.
 */
final class CallbackStruct<S extends Enum<S> & CallbackSlot, B extends StructBridge> extends HandleRegistry<B> {
    private final long size;
    private final EnumMap<S, MemorySegment> stubs;
    private final Set<S> implemented;

    /** A struct whose every callback the bridge implements. */
    CallbackStruct(Class<S> slots, MethodHandles.Lookup bridge) {
        this(slots, bridge, EnumSet.allOf(slots));
    }

    /**
     * @param bridge      the lookup of the bridge class whose static methods implement the callbacks, each named after
     *                    its slot ({@link Upcalls#find}); a slot it has no method for cannot be implemented
     * @param implemented the callbacks instances have; the others stay NULL (optional ones ORT does without)
     */
    CallbackStruct(Class<S> slots, MethodHandles.Lookup bridge, Set<S> implemented) {
        super(slots.getSimpleName().replaceFirst("Struct$", ""));
        this.implemented = EnumSet.copyOf(implemented);
        long end = 0;
        this.stubs = new EnumMap<>(slots);
        for (S slot : slots.getEnumConstants()) {
            end = Math.max(end, slot.byteOffset() + ValueLayout.ADDRESS.byteSize());
            MethodHandle target = Upcalls.find(bridge, bridge.lookupClass(), slot);
            if (target != null) {
                stubs.put(slot, UpcallGuard.stub(slot, target, Arena.global()));
            }
        }
        this.size = end; // the struct's SIZE: its members are its last fields
    }

    /**
     * Allocates one instance in {@code arena} with the given version and the implemented callbacks.
     * Slots newer than {@code version} stay NULL, as ORT expects of an EP built for that version.
     */
    MemorySegment allocate(Arena arena, int version) {
        MemorySegment struct = arena.allocate(size, 8);
        struct.fill((byte) 0);
        struct.set(ValueLayout.JAVA_INT, 0, version);
        for (S slot : implemented) {
            MemorySegment stub = stubs.get(slot);
            if (stub == null) {
                throw new IllegalStateException("no upcall target for " + slot.name());
            }
            if (slot.since() <= version) {
                struct.set(ValueLayout.ADDRESS, slot.byteOffset(), stub);
            }
        }
        return struct;
    }

    /** Makes {@code bridge} what upcalls on its struct find; the last step of the bridge's constructor. */
    void register(B bridge) {
        register(bridge.struct, bridge);
    }

    /**
     * The whole Release callback of a bridge that closes in one step: unregisters the bridge at {@code self}, closes
     * what it is in front of ({@link StructBridge#onRelease}), then frees its struct. An unknown pointer is logged
     * and ignored: a Release callback has no status to fail with.
     */
    void releaseAndClose(MemorySegment self) {
        B bridge = release(self);
        if (bridge != null) {
            try {
                bridge.onRelease();
            } finally {
                bridge.freeStruct();
            }
        }
    }
}
