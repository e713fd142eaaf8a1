package dev.javaep.bridge;

import dev.javaep.ort.CallbackSlot;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.EnumMap;
import java.util.Set;

/**
 * The shared upcall stubs of one EP-implemented C struct type, and the allocation of instances:
 * zero-filled at the struct's full API-29 size, version field set, only the callbacks the
 * instance implements non-NULL. Stubs are created once per process and never freed.
 */
final class CallbackStruct<S extends Enum<S> & CallbackSlot> {
    private final long size;
    private final EnumMap<S, MemorySegment> stubs;

    /**
     * @param bridge the lookup of the bridge class whose static methods implement the callbacks, each named after
     *               its slot ({@link Upcalls#find}); a slot it has no method for cannot be implemented
     */
    CallbackStruct(Class<S> slots, MethodHandles.Lookup bridge) {
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
    MemorySegment allocate(Arena arena, int version, Set<S> implemented) {
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
}
