package dev.javaep.bridge;

import dev.javaep.ort.CallbackSlot;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;

/** Finds the static upcall method a bridge class declares for a callback slot (same name, lower camel case). */
final class Upcalls {
    private Upcalls() {}

    /** The target for {@code slot}, or {@code null} if {@code owner} does not implement it. */
    static MethodHandle find(MethodHandles.Lookup lookup, Class<?> owner, CallbackSlot slot) {
        String method = Character.toLowerCase(slot.name().charAt(0)) + slot.name().substring(1);
        try {
            return lookup.findStatic(owner, method, slot.descriptor().toMethodType());
        } catch (NoSuchMethodException e) {
            return findWithAddressesAsLongs(lookup, owner, method, slot);
        } catch (IllegalAccessException e) {
            throw new LinkageError("upcall " + owner.getSimpleName() + "." + method + " is not accessible", e);
        }
    }

    /** The target declared with {@code long} for every pointer (a hot callback: no MemorySegment per argument), or null. */
    private static MethodHandle findWithAddressesAsLongs(MethodHandles.Lookup lookup, Class<?> owner, String method,
                                                          CallbackSlot slot) {
        try {
            return lookup.findStatic(owner, method, UpcallGuard.addressesAsLongs(slot.descriptor()).toMethodType());
        } catch (NoSuchMethodException e) {
            return null;
        } catch (IllegalAccessException e) {
            throw new LinkageError("upcall " + owner.getSimpleName() + "." + method + " is not accessible", e);
        }
    }
}
