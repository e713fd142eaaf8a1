package dev.javaep.cuda.kernel;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;

/**
 * Where each intermediate of a compiled group lives inside one workspace, for one set of input shapes:
 * a value's bytes are reused by a later value once every step that reads it has run. Offsets and
 * sizes are multiples of {@link #ALIGNMENT}, so every intermediate is aligned as the driver aligns an
 * allocation (the float4 kernels need 16 bytes).
 *
 * <p>Placement is greedy by size (the largest value first, each at the lowest offset that no value
 * alive at the same time occupies), which packs chains and diamonds of equal-sized values into as few
 * slots as their lifetimes allow. Lifetimes are in step indices, both ends inclusive: a step's
 * outputs never share memory with its inputs, because the kernels may not read what they write.
 *
 * @param offsets        byte offset of intermediate {@code i} in the workspace
 * @param sizes          bytes reserved for intermediate {@code i} (its size rounded up to {@link #ALIGNMENT})
 * @param workspaceBytes the workspace's size: the end of the highest placed value
 */
record IntermediatePlan(long[] offsets, long[] sizes, long workspaceBytes) {
    /** cuMemAlloc's alignment: every offset is a multiple of it. */
    static final long ALIGNMENT = 256;

    /**
     * Plans intermediates of {@code bytes[i]} bytes, written by step {@code firstStep[i]} and last read by
     * step {@code lastStep[i]} ({@code lastStep[i] == firstStep[i]} for a value no step reads).
     */
    static IntermediatePlan of(long[] bytes, int[] firstStep, int[] lastStep) {
        int count = bytes.length;
        if (firstStep.length != count || lastStep.length != count) {
            throw new IllegalArgumentException("sizes and lifetimes of " + count + " intermediates differ in length");
        }
        long[] sizes = new long[count];
        for (int i = 0; i < count; i++) {
            if (bytes[i] < 0 || lastStep[i] < firstStep[i]) {
                throw new IllegalArgumentException("intermediate " + i + ": " + bytes[i] + " bytes, steps "
                        + firstStep[i] + ".." + lastStep[i]);
            }
            sizes[i] = aligned(bytes[i]);
        }
        Integer[] order = new Integer[count];
        Arrays.setAll(order, i -> i);
        Arrays.sort(order, Comparator.<Integer>comparingLong(i -> -sizes[i]).thenComparingInt(i -> firstStep[i])
                .thenComparingInt(i -> i));
        long[] offsets = new long[count];
        List<Integer> placed = new ArrayList<>(count);
        long workspace = 0;
        for (int value : order) {
            if (sizes[value] == 0) {
                continue; // an empty tensor needs no bytes; offset 0 is as good as any
            }
            List<Integer> alive = new ArrayList<>();
            for (int other : placed) {
                if (firstStep[other] <= lastStep[value] && firstStep[value] <= lastStep[other]) {
                    alive.add(other);
                }
            }
            alive.sort(Comparator.comparingLong(other -> offsets[other]));
            long offset = 0;
            for (int other : alive) {
                if (offset + sizes[value] <= offsets[other]) {
                    break; // fits in the gap below this one
                }
                offset = Math.max(offset, offsets[other] + sizes[other]);
            }
            offsets[value] = offset;
            placed.add(value);
            workspace = Math.max(workspace, offset + sizes[value]);
        }
        return new IntermediatePlan(offsets, sizes, workspace);
    }

    static long aligned(long bytes) {
        return Math.multiplyExact(Math.ceilDiv(bytes, ALIGNMENT), ALIGNMENT);
    }

    int count() {
        return offsets.length;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof IntermediatePlan p && workspaceBytes == p.workspaceBytes && Arrays.equals(offsets, p.offsets)
                && Arrays.equals(sizes, p.sizes);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(offsets) * 31 + Long.hashCode(workspaceBytes);
    }

    @Override
    public String toString() {
        return "IntermediatePlan[" + workspaceBytes + " bytes, offsets " + Arrays.toString(offsets) + ", sizes "
                + Arrays.toString(sizes) + "]";
    }
}
