package dev.javaep.cuda.kernel.elementwise;

import dev.javaep.spi.Broadcasting;
import java.util.Arrays;

/**
 * Where each input's element lies for an output element of a multidirectional broadcast, as the template's two
 * forms take it: {@link #steps} when every input is the output's size (step 1) or a single element (step 0);
 * otherwise the output's dimensions with size-1 ones dropped and neighbours merged where every input is present
 * in both or stretched over both ({@link #shape}), and each input's element stride per merged dimension, 0 where
 * it is stretched ({@link #strides}, input-major, {@link ElementwiseSource#MAX_RANK} per input).
 *
 * @param steps   per input 1 or 0 in the contiguous form; null in the broadcast form
 * @param shape   the merged output shape (broadcast form)
 * @param strides {@code strides[k * 8 + d]}: input k's stride along merged dimension d (broadcast form)
 */
record ElementwiseLayout(long[] steps, long[] shape, long[] strides) {

    boolean contiguous() {
        return steps != null;
    }

    /** The layout of inputs of {@code shapes} broadcast to {@code output} (which they must broadcast to). */
    static ElementwiseLayout of(long[] output, long[]... shapes) {
        long count = 1;
        for (long d : output) {
            count = Math.multiplyExact(count, d);
        }
        long[] steps = new long[shapes.length];
        boolean contiguous = true;
        for (int k = 0; k < shapes.length; k++) {
            long size = Arrays.stream(shapes[k]).reduce(1, Math::multiplyExact);
            steps[k] = size == count ? 1 : 0;
            contiguous &= size == count || size == 1;
        }
        if (contiguous) {
            return new ElementwiseLayout(steps, null, null);
        }
        int rank = output.length;
        long[] sizes = new long[rank];
        boolean[][] present = new boolean[rank][];
        int merged = 0;
        for (int d = 0; d < rank; d++) {
            if (output[d] == 1) {
                continue;
            }
            boolean[] p = new boolean[shapes.length];
            for (int k = 0; k < shapes.length; k++) {
                p[k] = Broadcasting.alignedDim(shapes[k], rank, d) != 1;
            }
            if (merged > 0 && Arrays.equals(present[merged - 1], p)) {
                sizes[merged - 1] *= output[d];
            } else {
                sizes[merged] = output[d];
                present[merged] = p;
                merged++;
            }
        }
        if (merged > ElementwiseSource.MAX_RANK) {
            throw new IllegalArgumentException("broadcasting " + Arrays.deepToString(shapes) + " to " + Arrays.toString(output)
                    + " needs " + merged + " dimensions after merging; the CUDA template handles " + ElementwiseSource.MAX_RANK);
        }
        long[] strides = new long[shapes.length * ElementwiseSource.MAX_RANK];
        for (int k = 0; k < shapes.length; k++) {
            long run = 1;
            for (int d = merged - 1; d >= 0; d--) {
                strides[k * ElementwiseSource.MAX_RANK + d] = present[d][k] ? run : 0;
                run *= present[d][k] ? sizes[d] : 1;
            }
        }
        return new ElementwiseLayout(null, Arrays.copyOf(sizes, merged), strides);
    }
}
