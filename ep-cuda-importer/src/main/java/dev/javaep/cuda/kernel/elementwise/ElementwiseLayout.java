package dev.javaep.cuda.kernel.elementwise;

import dev.javaep.cpu.kernel.MergedBroadcast;
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
        MergedBroadcast merged = MergedBroadcast.of(output, shapes);
        if (merged.rank() > ElementwiseSource.MAX_RANK) {
            throw new IllegalArgumentException("broadcasting " + Arrays.deepToString(shapes) + " to " + Arrays.toString(output)
                    + " needs " + merged.rank() + " dimensions after merging; the CUDA template handles "
                    + ElementwiseSource.MAX_RANK);
        }
        long[] strides = new long[shapes.length * ElementwiseSource.MAX_RANK];
        for (int k = 0; k < shapes.length; k++) {
            System.arraycopy(merged.strides()[k], 0, strides, k * ElementwiseSource.MAX_RANK, merged.rank());
        }
        return new ElementwiseLayout(null, merged.sizes(), strides);
    }
}
