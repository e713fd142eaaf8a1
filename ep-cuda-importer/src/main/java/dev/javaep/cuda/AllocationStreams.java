package dev.javaep.cuda;

import java.util.Arrays;

/**
 * The stream each live allocation of a {@link CudaDeviceAllocator} is ordered on, by device address: an open-addressing
 * table of primitive {@code long}s (linear probing, deletion by backward shift), so that an allocation and its free box
 * nothing, as a {@code Map<Long, Long>} would. Synchronized: ORT allocates from several sessions' threads.
 */
final class AllocationStreams {
    /** Address 0 is never an allocation (the allocator asks for at least one byte): it marks a free slot. */
    private static final long EMPTY = 0;
    /** What {@link #remove} answers for an address that is not tracked. */
    static final long ABSENT = -1;

    private long[] addresses = new long[64];
    private long[] streams = new long[64];
    private int size;

    synchronized void put(long address, long stream) {
        if (address == EMPTY) {
            throw new IllegalArgumentException("javaep: device address 0 is no allocation");
        }
        if (2 * (size + 1) > addresses.length) {
            grow();
        }
        int slot = slot(address);
        while (addresses[slot] != EMPTY && addresses[slot] != address) {
            slot = next(slot);
        }
        if (addresses[slot] == EMPTY) {
            size++;
        }
        addresses[slot] = address;
        streams[slot] = stream;
    }

    /** Forgets {@code address} and answers its stream, or {@link #ABSENT} where it was not tracked. */
    synchronized long remove(long address) {
        if (address == EMPTY) {
            return ABSENT;
        }
        int slot = slot(address);
        while (addresses[slot] != address) {
            if (addresses[slot] == EMPTY) {
                return ABSENT;
            }
            slot = next(slot);
        }
        long stream = streams[slot];
        size--;
        // backward shift: move later entries of the probe run into the hole, so that lookups need no tombstones
        int hole = slot;
        for (int i = next(slot); addresses[i] != EMPTY; i = next(i)) {
            int home = slot(addresses[i]);
            boolean movable = hole <= i ? home <= hole || home > i : home <= hole && home > i;
            if (movable) {
                addresses[hole] = addresses[i];
                streams[hole] = streams[i];
                hole = i;
            }
        }
        addresses[hole] = EMPTY;
        return stream;
    }

    /** The tracked addresses (a copy). */
    synchronized long[] addresses() {
        return Arrays.stream(addresses).filter(a -> a != EMPTY).toArray();
    }

    synchronized int size() {
        return size;
    }

    synchronized void clear() {
        Arrays.fill(addresses, EMPTY);
        size = 0;
    }

    private int slot(long address) {
        long h = address * 0x9E3779B97F4A7C15L; // device addresses share their low bits: mix them
        return (int) (h >>> 32) & (addresses.length - 1);
    }

    private int next(int slot) {
        return (slot + 1) & (addresses.length - 1);
    }

    private void grow() {
        long[] oldAddresses = addresses;
        long[] oldStreams = streams;
        addresses = new long[oldAddresses.length * 2];
        streams = new long[oldStreams.length * 2];
        size = 0;
        for (int i = 0; i < oldAddresses.length; i++) {
            if (oldAddresses[i] != EMPTY) {
                put(oldAddresses[i], oldStreams[i]);
            }
        }
    }
}
