package dev.javaep.spi;

import java.util.Arrays;

/**
 * ONNX broadcasting rules on shapes, for EP authors' kernels on any device. Shapes are aligned at
 * their last dimension; a missing leading dimension counts as 1.
 */
public final class Broadcasting {
    private Broadcasting() {}

    /** The shape two inputs broadcast to under multidirectional (numpy) broadcasting. */
    public static long[] multidirectional(long[] a, long[] b) {
        int rank = Math.max(a.length, b.length);
        long[] out = new long[rank];
        for (int i = 0; i < rank; i++) {
            long da = alignedDim(a, rank, i);
            long db = alignedDim(b, rank, i);
            if (da == db || db == 1) {
                out[i] = da;
            } else if (da == 1) {
                out[i] = db;
            } else {
                throw new IllegalArgumentException("cannot broadcast shapes " + Arrays.toString(a) + " and "
                        + Arrays.toString(b) + ": dimension " + (i - rank) + " is " + da + " in one and " + db
                        + " in the other; aligned from the right, each pair must be equal or contain a 1");
            }
        }
        return out;
    }

    /** Fails unless {@code from} broadcasts unidirectionally to {@code to} (only {@code from} is stretched). */
    public static void requireUnidirectional(long[] from, long[] to, String what) {
        boolean ok = from.length <= to.length;
        for (int i = 0; ok && i < to.length; i++) {
            long d = alignedDim(from, to.length, i);
            ok = d == 1 || d == to[i];
        }
        if (!ok) {
            throw new IllegalArgumentException(what + " of shape " + Arrays.toString(from)
                    + " cannot be broadcast to " + Arrays.toString(to));
        }
    }

    /**
     * Element strides of a contiguous row-major tensor of shape {@code shape} when read as a tensor
     * of rank {@code rank} it broadcasts to: 0 along the dimensions it is stretched over.
     */
    public static long[] strides(long[] shape, int rank) {
        long[] strides = new long[rank];
        long stride = 1;
        for (int i = rank - 1; i >= 0; i--) {
            long d = alignedDim(shape, rank, i);
            strides[i] = d == 1 ? 0 : stride;
            stride *= d;
        }
        return strides;
    }

    /** Dimension {@code i} of {@code shape} right-aligned into {@code rank} dimensions. */
    public static long alignedDim(long[] shape, int rank, int i) {
        int j = i - (rank - shape.length);
        return j < 0 ? 1 : shape[j];
    }
}
