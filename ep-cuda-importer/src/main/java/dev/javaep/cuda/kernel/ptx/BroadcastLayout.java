package dev.javaep.cuda.kernel.ptx;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;
import java.util.Arrays;

/**
 * The {@code layout} parameter of the {@code ew_*_f32_bcast} kernels: how each output element of a
 * multidirectionally broadcast binary op finds its two inputs.
 *
 * <p>192 bytes, little-endian, 8-byte aligned: {@code u64 outDims[8]} at 0, {@code u64 aStrides[8]}
 * at 64, {@code u64 bStrides[8]} at 128. Entries {@code 0 .. rank-1} are the output's dimensions
 * outermost first and each input's element strides in that (right-aligned) frame, 0 where the input
 * is stretched; unused entries are packed as dimension 1, stride 0. The kernel maps output index
 * {@code i} to input offsets exactly as {@link #offsetsOf(long)} does.
 *
 * <p>{@link #of} keeps the output's dimensions as they are; {@link #coalesced} merges neighbouring
 * dimensions that both inputs walk contiguously and drops dimensions of size 1, which makes the
 * kernel do fewer divisions and lets shapes of rank above 8 run when they merge to 8 or fewer.
 */
public final class BroadcastLayout {
    /** The most dimensions the kernel decomposes. */
    public static final int MAX_RANK = 8;
    /** Size of the packed layout. */
    public static final int BYTES = 3 * MAX_RANK * Long.BYTES;

    private static final ValueLayout.OfLong LE_LONG =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private final int rank;
    private final long[] outDims;
    private final long[] aStrides;
    private final long[] bStrides;

    private BroadcastLayout(long[] outDims, long[] aStrides, long[] bStrides) {
        this.rank = outDims.length;
        this.outDims = outDims;
        this.aStrides = aStrides;
        this.bStrides = bStrides;
    }

    /**
     * The layout for {@code out = a OP b} with {@code out} the multidirectional broadcast of the two
     * input shapes, keeping all of the output's dimensions.
     *
     * @throws IllegalArgumentException if an input does not broadcast to {@code outShape} or the
     *     output has more than {@value #MAX_RANK} dimensions (try {@link #coalesced})
     */
    public static BroadcastLayout of(long[] outShape, long[] aShape, long[] bShape) {
        BroadcastLayout layout = full(outShape, aShape, bShape);
        if (layout.rank > MAX_RANK) {
            throw new IllegalArgumentException("the broadcast kernels take at most " + MAX_RANK
                    + " dimensions, the output " + Arrays.toString(outShape) + " has " + layout.rank
                    + ": use BroadcastLayout.coalesced, which merges dimensions the inputs walk together");
        }
        return layout;
    }

    /**
     * As {@link #of}, then with size-1 dimensions dropped and neighbouring dimensions merged
     * wherever both inputs step through them as one (outer stride = inner stride × inner
     * dimension). An output with no elements gives rank 1 with dimension 0.
     *
     * @throws IllegalArgumentException if an input does not broadcast to {@code outShape} or more
     *     than {@value #MAX_RANK} dimensions are left after merging
     */
    public static BroadcastLayout coalesced(long[] outShape, long[] aShape, long[] bShape) {
        BroadcastLayout layout = full(outShape, aShape, bShape);
        if (layout.elementCount() == 0) {
            return new BroadcastLayout(new long[] {0}, new long[] {0}, new long[] {0});
        }
        int r = layout.rank;
        long[] dims = new long[r];
        long[] sa = new long[r];
        long[] sb = new long[r];
        int kept = 0; // merged dimensions, innermost first
        for (int d = r - 1; d >= 0; d--) {
            long dim = layout.outDims[d];
            if (dim == 1) {
                continue;
            }
            if (kept > 0) {
                int in = kept - 1;
                if (layout.aStrides[d] == sa[in] * dims[in] && layout.bStrides[d] == sb[in] * dims[in]) {
                    dims[in] *= dim;
                    continue;
                }
            }
            dims[kept] = dim;
            sa[kept] = layout.aStrides[d];
            sb[kept] = layout.bStrides[d];
            kept++;
        }
        if (kept > MAX_RANK) {
            throw new IllegalArgumentException("the broadcast kernels take at most " + MAX_RANK
                    + " dimensions; output " + Arrays.toString(outShape) + " with inputs "
                    + Arrays.toString(aShape) + " and " + Arrays.toString(bShape) + " still has " + kept
                    + " after merging");
        }
        return new BroadcastLayout(reversed(dims, kept), reversed(sa, kept), reversed(sb, kept));
    }

    /**
     * The element strides of a row-major tensor of shape {@code inShape} read as the right-aligned
     * broadcast to {@code outShape}: one entry per output dimension, 0 where the input's dimension
     * is 1 or missing (stretched, or of size 1 everywhere, where the coordinate is always 0).
     *
     * @throws IllegalArgumentException if {@code inShape} does not broadcast to {@code outShape}
     */
    public static long[] strides(long[] outShape, long[] inShape) {
        int rank = outShape.length;
        if (inShape.length > rank) {
            throw new IllegalArgumentException("an input of shape " + Arrays.toString(inShape)
                    + " has more dimensions than the output " + Arrays.toString(outShape));
        }
        long[] strides = new long[rank];
        long stride = 1;
        for (int d = rank - 1; d >= 0; d--) {
            int j = d - (rank - inShape.length);
            long dim = j < 0 ? 1 : inShape[j];
            if (dim < 0 || outShape[d] < 0) {
                throw new IllegalArgumentException("negative dimension in " + Arrays.toString(inShape)
                        + " or " + Arrays.toString(outShape));
            }
            if (dim != 1 && dim != outShape[d]) {
                throw new IllegalArgumentException("an input of shape " + Arrays.toString(inShape)
                        + " does not broadcast to " + Arrays.toString(outShape) + ": dimension " + (d - rank)
                        + " is " + dim + ", the output's is " + outShape[d]
                        + " (aligned from the right, each must be equal or 1)");
            }
            strides[d] = dim == 1 ? 0 : stride;
            stride *= dim;
        }
        return strides;
    }

    private static BroadcastLayout full(long[] outShape, long[] aShape, long[] bShape) {
        return new BroadcastLayout(outShape.clone(), strides(outShape, aShape), strides(outShape, bShape));
    }

    private static long[] reversed(long[] innermostFirst, int count) {
        long[] r = new long[count];
        for (int d = 0; d < count; d++) {
            r[d] = innermostFirst[count - 1 - d];
        }
        return r;
    }

    /** The {@code rank} kernel parameter. */
    public int rank() {
        return rank;
    }

    /** The output dimensions, {@link #rank()} of them, outermost first. */
    public long[] outDims() {
        return outDims.clone();
    }

    /** Input a's element strides per output dimension (0 = broadcast). */
    public long[] aStrides() {
        return aStrides.clone();
    }

    /** Input b's element strides per output dimension (0 = broadcast). */
    public long[] bStrides() {
        return bStrides.clone();
    }

    /** The {@code n} kernel parameter: the product of the output dimensions. */
    public long elementCount() {
        long n = 1;
        for (long d : outDims) {
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    /**
     * The reference model of the kernel's index math: the offsets (in elements) of a's and b's
     * operands of output element {@code index}. Coordinates come off the index innermost first, the
     * outermost one being what is left, as in the PTX.
     */
    public long[] offsetsOf(long index) {
        long q = index;
        long offA = 0;
        long offB = 0;
        for (int d = rank - 1; d >= 0; d--) {
            long coord;
            if (d == 0) {
                coord = q;
            } else {
                long next = Long.divideUnsigned(q, outDims[d]);
                coord = q - next * outDims[d];
                q = next;
            }
            offA += coord * aStrides[d];
            offB += coord * bStrides[d];
        }
        return new long[] {offA, offB};
    }

    /** Writes the 192-byte kernel parameter at {@code offset} of {@code segment}. */
    public void writeTo(MemorySegment segment, long offset) {
        for (int d = 0; d < MAX_RANK; d++) {
            boolean used = d < rank;
            segment.set(LE_LONG, offset + 8L * d, used ? outDims[d] : 1);
            segment.set(LE_LONG, offset + 64 + 8L * d, used ? aStrides[d] : 0);
            segment.set(LE_LONG, offset + 128 + 8L * d, used ? bStrides[d] : 0);
        }
    }

    /** The 192-byte kernel parameter in a new 8-byte-aligned segment of {@code arena}. */
    public MemorySegment allocate(Arena arena) {
        MemorySegment segment = arena.allocate(BYTES, Long.BYTES);
        writeTo(segment, 0);
        return segment;
    }

    /** The 192-byte kernel parameter as bytes. */
    public byte[] toBytes() {
        byte[] bytes = new byte[BYTES];
        writeTo(MemorySegment.ofArray(bytes), 0);
        return bytes;
    }

    @Override
    public String toString() {
        return "BroadcastLayout[rank=" + rank + ", outDims=" + Arrays.toString(outDims) + ", aStrides="
                + Arrays.toString(aStrides) + ", bStrides=" + Arrays.toString(bStrides) + "]";
    }
}
