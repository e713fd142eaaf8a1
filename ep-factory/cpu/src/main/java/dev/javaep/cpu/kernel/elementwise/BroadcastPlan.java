package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.ops.ElementwiseOps;

/**
 * {@link dev.javaep.cpu.kernel.BroadcastRows} for any number of inputs (Where's three, Sum's many): the output
 * of a multidirectional broadcast walked as contiguous rows, with each input's start index per row and its step
 * along a row (1 when it advances, 0 when it repeats one element).
 *
 * <p>Output dimensions of size 1 are dropped, and neighbouring dimensions merge when every input is present in
 * both or stretched over both; inputs of one shape become one row, a bias along the last axis rows of that
 * axis' length.
 */
final class BroadcastPlan {

    @FunctionalInterface
    interface RowAction {
        /**
         * One output row of {@link #rowLength()} elements starting at {@code outIndex}; {@code starts[k]} is input
         * k's index for the row's first element. The array is reused for the next row.
         */
        void row(long outIndex, long[] starts);
    }

    @FunctionalInterface
    interface ChunkAction {
        /**
         * {@code n} output elements (at most {@link Lanes#CHUNK}) from {@code outIndex}; {@code starts[k]} is input
         * k's index for the first of them, and input k advances {@link #step(int)} per element. The array is reused.
         */
        void chunk(long outIndex, long[] starts, int n);
    }

    private final long[] outputShape;
    private final long outputCount;
    private final long rowLength;
    private final long[] steps;
    private final long[] outerDims;
    /** [input][outer dimension]: element stride, 0 where the input is stretched. */
    private final long[][] outerStrides;

    private BroadcastPlan(long[] outputShape, long rowLength, long[] steps, long[] outerDims, long[][] outerStrides) {
        this.outputShape = outputShape;
        this.outputCount = Shapes.elementCount(outputShape);
        this.rowLength = rowLength;
        this.steps = steps;
        this.outerDims = outerDims;
        this.outerStrides = outerStrides;
    }

    /** The plan for inputs of these shapes; throws if they do not broadcast together. */
    static BroadcastPlan of(long[]... shapes) {
        long[] out = ElementwiseOps.broadcastShape(shapes);
        int inputs = shapes.length;
        int rank = out.length;
        long[] sizes = new long[rank];
        boolean[][] present = new boolean[rank][];
        int merged = 0;
        for (int d = 0; d < rank; d++) {
            if (out[d] == 1) {
                continue;
            }
            boolean[] p = new boolean[inputs];
            for (int k = 0; k < inputs; k++) {
                p[k] = Broadcasting.alignedDim(shapes[k], rank, d) != 1;
            }
            if (merged > 0 && java.util.Arrays.equals(present[merged - 1], p)) {
                sizes[merged - 1] *= out[d];
            } else {
                sizes[merged] = out[d];
                present[merged] = p;
                merged++;
            }
        }
        if (merged == 0) {
            long[] ones = new long[inputs];
            java.util.Arrays.fill(ones, 1);
            return new BroadcastPlan(out, 1, ones, new long[0], new long[inputs][0]);
        }
        int outer = merged - 1;
        long[] steps = new long[inputs];
        long[] outerDims = new long[outer];
        long[][] strides = new long[inputs][outer];
        for (int k = 0; k < inputs; k++) {
            steps[k] = present[outer][k] ? 1 : 0;
            long run = present[outer][k] ? sizes[outer] : 1;
            for (int d = outer - 1; d >= 0; d--) {
                strides[k][d] = present[d][k] ? run : 0;
                run *= present[d][k] ? sizes[d] : 1;
            }
        }
        System.arraycopy(sizes, 0, outerDims, 0, outer);
        return new BroadcastPlan(out, sizes[outer], steps, outerDims, strides);
    }

    long[] outputShape() {
        return outputShape.clone();
    }

    long outputCount() {
        return outputCount;
    }

    long rowLength() {
        return rowLength;
    }

    /** Input {@code k}'s step along a row: 1 or 0. */
    long step(int k) {
        return steps[k];
    }

    long rowCount() {
        return outputCount == 0 ? 0 : outputCount / rowLength;
    }

    /** Calls {@code action} for each row cut into chunks of at most {@link Lanes#CHUNK} elements, in output order. */
    void forEachChunk(ChunkAction action) {
        long[] shifted = new long[steps.length];
        forEachRow((outIndex, starts) -> {
            for (long c = 0; c < rowLength; c += Lanes.CHUNK) {
                for (int k = 0; k < shifted.length; k++) {
                    shifted[k] = starts[k] + c * steps[k];
                }
                action.chunk(outIndex + c, shifted, (int) Math.min(Lanes.CHUNK, rowLength - c));
            }
        });
    }

    /** Calls {@code action} once per row, in output order; input starts are updated incrementally. */
    void forEachRow(RowAction action) {
        long rows = rowCount();
        int depth = outerDims.length;
        int inputs = steps.length;
        long[] counter = new long[depth];
        long[] starts = new long[inputs];
        long[] current = new long[inputs];
        long outIndex = 0;
        for (long r = 0; r < rows; r++) {
            System.arraycopy(current, 0, starts, 0, inputs);
            action.row(outIndex, starts);
            outIndex += rowLength;
            for (int d = depth - 1; d >= 0; d--) {
                for (int k = 0; k < inputs; k++) {
                    current[k] += outerStrides[k][d];
                }
                if (++counter[d] < outerDims[d]) {
                    break;
                }
                counter[d] = 0;
                for (int k = 0; k < inputs; k++) {
                    current[k] -= outerStrides[k][d] * outerDims[d];
                }
            }
        }
    }
}
