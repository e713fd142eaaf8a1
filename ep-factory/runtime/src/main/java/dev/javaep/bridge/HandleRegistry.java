package dev.javaep.bridge;

import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.EpLog;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Maps the native {@code this} pointers ORT passes to callbacks back to the Java objects behind them.
 * Upcall stubs are shared per struct type (one stub per callback for the whole process), so
 * creating a struct costs an allocation and a map entry, not new stubs.
 */
final class HandleRegistry<T> {
    private final String kind;
    private final ConcurrentHashMap<Long, T> objects = new ConcurrentHashMap<>();

    HandleRegistry(String kind) {
        this.kind = kind;
        BridgeStatistics.track(kind, objects::size);
    }

    void register(MemorySegment struct, T object) {
        if (objects.putIfAbsent(struct.address(), object) != null) {
            throw new IllegalStateException(kind + " at 0x" + Long.toHexString(struct.address()) + " registered twice");
        }
    }

    T get(MemorySegment self) {
        T object = objects.get(self.address());
        if (object == null) {
            throw new OrtException(OrtErrorCode.INVALID_ARGUMENT,
                    "javaep: unknown " + kind + " pointer 0x" + Long.toHexString(self.address())
                            + " (already released, or not created by javaep)");
        }
        return object;
    }

    /** The object at {@code self}, or null when javaep did not create it (or it was released). */
    T find(MemorySegment self) {
        return objects.get(self.address());
    }

    /** Whether no object is registered. */
    boolean isEmpty() {
        return objects.isEmpty();
    }

    T remove(MemorySegment self) {
        return objects.remove(self.address());
    }

    /**
     * Removes the object at {@code self} for its Release callback; null for a pointer javaep does not know (released
     * twice, or not created by javaep), which is logged and ignored: a Release callback has no status to fail with.
     */
    T release(MemorySegment self) {
        T object = objects.remove(self.address());
        if (object == null) {
            EpLog.warning("javaep: Release got an unknown " + kind + " pointer 0x" + Long.toHexString(self.address())
                    + " (already released, or not created by javaep); ignored");
        }
        return object;
    }
}
