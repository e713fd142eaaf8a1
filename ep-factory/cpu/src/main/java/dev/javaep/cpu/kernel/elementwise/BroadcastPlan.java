package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.MergedBroadcast;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ops.ElementwiseOps;
import java.util.Arrays;

/**
 * {@link dev.javaep.cpu.kernel.BroadcastRows} for any number of inputs (Where's three, Sum's many): the output
 * of a multidirectional broadcast walked as contiguous rows, with each input's start index per row and its step
 * along a row (1 when it advances, 0 when it repeats one element).
 *
 * <p>Output dimensions of size 1 are dropped, and neighbouring dimensions merge when every input is present in
 * both or stretched over both; inputs of one shape become one row, a bias along the last axis rows of that
 * axis' length.
 *
 * <p>A plan keeps the counters of its walk, so it walks for one caller at a time (kernels keep one per
 * {@link dev.javaep.cpu.kernel.PlannedKernel.Plan}, which is one thread's); a walk allocates nothing.
 */
final class BroadcastPlan {

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
    /** The merged dimensions, outermost first; the last is the row. */
    private final long[] dims;
    /** [input][merged dimension]: element stride, 0 where the input is stretched. */
    private final long[][] strides;
    /** Each input's stride along a row: 1 or 0. */
    private final long[] steps;
    /** The walk's state: position in the merged dimensions above the row, each input's row start and chunk start. */
    private final long[] counter;
    private final long[] starts;
    private final long[] current;
    private final long[] shifted;

    private BroadcastPlan(long[] outputShape, long[] dims, long[][] strides) {
        this.outputShape = outputShape;
        this.outputCount = Shapes.elementCount(outputShape);
        this.dims = dims;
        this.strides = strides;
        this.steps = new long[strides.length];
        for (int k = 0; k < steps.length; k++) {
            steps[k] = strides[k][dims.length - 1];
        }
        this.counter = new long[dims.length - 1];
        this.starts = new long[steps.length];
        this.current = new long[steps.length];
        this.shifted = new long[steps.length];
    }

    /** The plan for inputs of these shapes; throws if they do not broadcast together. */
    static BroadcastPlan of(long[]... shapes) {
        long[] out = ElementwiseOps.broadcastShape(shapes);
        MergedBroadcast merged = MergedBroadcast.of(out, shapes);
        if (merged.rank() == 0) {
            // every dimension is 1: one row of one element, each input advancing onto its only element
            long[][] ones = new long[shapes.length][];
            for (int k = 0; k < ones.length; k++) {
                ones[k] = new long[] {1};
            }
            return new BroadcastPlan(out, new long[] {1}, ones);
        }
        return new BroadcastPlan(out, merged.sizes(), merged.strides());
    }

    long[] outputShape() {
        return outputShape.clone();
    }

    long outputCount() {
        return outputCount;
    }

    long rowLength() {
        return dims[dims.length - 1];
    }

    /** Input {@code k}'s step along a row: 1 or 0. */
    long step(int k) {
        return steps[k];
    }

    long rowCount() {
        return outputCount == 0 ? 0 : outputCount / rowLength();
    }

    /** Calls {@code action} for each row cut into chunks of at most {@link Lanes#CHUNK} elements, in output order. */
    void forEachChunk(ChunkAction action) {
        long rows = rowCount();
        long rowLength = rowLength();
        int depth = dims.length - 1; // the merged dimensions above the row
        int inputs = steps.length;
        Arrays.fill(counter, 0);
        Arrays.fill(current, 0);
        long outIndex = 0;
        for (long r = 0; r < rows; r++) {
            System.arraycopy(current, 0, starts, 0, inputs);
            for (long c = 0; c < rowLength; c += Lanes.CHUNK) {
                for (int k = 0; k < inputs; k++) {
                    shifted[k] = starts[k] + c * steps[k];
                }
                action.chunk(outIndex + c, shifted, (int) Math.min(Lanes.CHUNK, rowLength - c));
            }
            outIndex += rowLength;
            for (int d = depth - 1; d >= 0; d--) {
                for (int k = 0; k < inputs; k++) {
                    current[k] += strides[k][d];
                }
                if (++counter[d] < dims[d]) {
                    break;
                }
                counter[d] = 0;
                for (int k = 0; k < inputs; k++) {
                    current[k] -= strides[k][d] * dims[d];
                }
            }
        }
    }
}
