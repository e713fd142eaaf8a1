package dev.javaep.bridge;

import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.EpLog;
import java.lang.foreign.MemorySegment;
import java.util.HashMap;
import java.util.Map;

/**
 * Maps the native {@code this} pointers ORT passes to callbacks back to the Java objects behind them.
 * Upcall stubs are shared per struct type (one stub per callback for the whole process), so
 * creating a struct costs an allocation and a map entry, not new stubs.
 *
 * <p>Lookups run in every callback of a Run (Compute, Alloc, Free), so they allocate nothing: they read an
 * immutable open-addressing table of primitive addresses ({@link Table}), which register and remove (rare: once
 * per session object) rebuild under a lock and publish through a volatile field. A {@code Map<Long, T>} would box
 * every address it is asked for.
 */
class HandleRegistry<T> {
    private final String kind;
    /** The registered objects by address; guarded by {@code this}. */
    private final Map<Long, T> objects = new HashMap<>();
    private volatile Table table = Table.EMPTY;

    HandleRegistry(String kind) {
        this.kind = kind;
        BridgeStatistics.track(kind, () -> table.size);
    }

    synchronized void register(MemorySegment struct, T object) {
        if (objects.putIfAbsent(struct.address(), object) != null) {
            throw new IllegalStateException(kind + " at 0x" + Long.toHexString(struct.address()) + " registered twice");
        }
        table = Table.of(objects);
    }

    T get(MemorySegment self) {
        return get(self.address());
    }

    /** As {@link #get(MemorySegment)}, for callbacks that take their pointers as long addresses. */
    @SuppressWarnings("unchecked")
    T get(long self) {
        T object = (T) table.get(self);
        if (object == null) {
            throw unknown(self);
        }
        return object;
    }

    private OrtException unknown(long self) {
        return new OrtException(OrtErrorCode.INVALID_ARGUMENT, "javaep: unknown " + kind + " pointer 0x"
                + Long.toHexString(self) + " (already released, or not created by javaep)");
    }

    /** The object at {@code self}, or null when javaep did not create it (or it was released). */
    @SuppressWarnings("unchecked")
    T find(MemorySegment self) {
        return (T) table.get(self.address());
    }

    /** Whether no object is registered. */
    synchronized boolean isEmpty() {
        return objects.isEmpty();
    }

    synchronized T remove(MemorySegment self) {
        T object = objects.remove(self.address());
        if (object != null) {
            table = Table.of(objects);
        }
        return object;
    }

    /** Removes the object at {@code self} for a release that can fail: ORT_INVALID_ARGUMENT for a pointer javaep does not know. */
    T removeKnown(MemorySegment self) {
        T object = remove(self);
        if (object == null) {
            throw unknown(self.address());
        }
        return object;
    }

    /**
     * Removes the object at {@code self} for its Release callback; null for a pointer javaep does not know (released
     * twice, or not created by javaep), which is logged and ignored: a Release callback has no status to fail with.
     */
    T release(MemorySegment self) {
        T object = remove(self);
        if (object == null) {
            EpLog.warning("javaep: Release got an unknown " + kind + " pointer 0x" + Long.toHexString(self.address())
                    + " (already released, or not created by javaep); ignored");
        }
        return object;
    }

    /** Addresses and objects in linear-probing slots, at most half full; address 0 marks a free slot (NULL is never registered). */
    private static final class Table {
        static final Table EMPTY = new Table(new long[1], new Object[1], 0);

        private final long[] keys;
        private final Object[] values;
        private final int size;

        private Table(long[] keys, Object[] values, int size) {
            this.keys = keys;
            this.values = values;
            this.size = size;
        }

        static Table of(Map<Long, ?> objects) {
            int capacity = Integer.highestOneBit(Math.max(1, objects.size()) * 4 - 1) << 1;
            long[] keys = new long[capacity];
            Object[] values = new Object[capacity];
            objects.forEach((address, object) -> {
                int i = index(address, capacity - 1);
                while (keys[i] != 0) {
                    i = (i + 1) & (capacity - 1);
                }
                keys[i] = address;
                values[i] = object;
            });
            return new Table(keys, values, objects.size());
        }

        Object get(long address) {
            int mask = keys.length - 1;
            for (int i = index(address, mask); ; i = (i + 1) & mask) {
                long key = keys[i];
                if (key == address && address != 0) {
                    return values[i];
                }
                if (key == 0) {
                    return null;
                }
            }
        }

        private static int index(long address, int mask) {
            long h = address * 0x9E3779B97F4A7C15L; // Fibonacci hashing: struct addresses share their low bits
            return (int) (h >>> 32) & mask;
        }
    }
}
