package dev.javaep.cpu.kernel;

import dev.javaep.spi.Broadcasting;
import java.util.Arrays;

/**
 * The output of a multidirectional broadcast with its size-1 dimensions dropped and neighbouring dimensions merged
 * where every input is present in both or stretched over both, and each input's element stride per merged dimension
 * (0 where it is stretched). Inputs of one shape merge into one dimension, a bias along the last axis into two. Both
 * backends walk this: JavaCpu as rows ({@link BroadcastRows}, the elementwise BroadcastPlan), JavaCuda's elementwise
 * template as strides.
 *
 * @param sizes   the merged dimensions, outermost first (none when every output dimension is 1)
 * @param strides {@code strides[k][d]}: input k's element stride along merged dimension d
 */
public record MergedBroadcast(long[] sizes, long[][] strides) {

    /** The merged form of inputs of {@code shapes} broadcast to {@code output} (which they must broadcast to). */
    public static MergedBroadcast of(long[] output, long[]... shapes) {
        int inputs = shapes.length;
        int rank = output.length;
        long[] sizes = new long[rank];
        boolean[][] present = new boolean[rank][];
        int merged = 0;
        for (int d = 0; d < rank; d++) {
            if (output[d] == 1) {
                continue;
            }
            boolean[] p = new boolean[inputs];
            for (int k = 0; k < inputs; k++) {
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
        long[][] strides = new long[inputs][merged];
        for (int k = 0; k < inputs; k++) {
            long run = 1;
            for (int d = merged - 1; d >= 0; d--) {
                strides[k][d] = present[d][k] ? run : 0;
                run *= present[d][k] ? sizes[d] : 1;
            }
        }
        return new MergedBroadcast(Arrays.copyOf(sizes, merged), strides);
    }

    /** How many merged dimensions there are. */
    public int rank() {
        return sizes.length;
    }
}
