package dev.javaep.cpu.kernel;

import dev.javaep.spi.Broadcasting;
import java.util.Arrays;

/**
 * Walks the output of a two-input broadcast as contiguous output rows, telling for each row where
 * it starts in both inputs. Along a row each input either advances one element per output element
 * (step 1) or repeats one element (step 0).
 *
 * <p>The walk is over the inputs' {@link MergedBroadcast}: output dimensions of size 1 dropped and
 * neighbouring dimensions in which each input is either present or stretched alike merged. So inputs
 * of the same shape become a single row, a scalar operand becomes a single row with step 0, and a
 * bias added along the last dimension becomes rows of that dimension's length: the fast paths fall out of the general case, and the
 * per-element loops never divide or branch on the shape.
 */
public final class BroadcastRows {

    @FunctionalInterface
    public interface RowAction {
        /** One output row of {@link #rowLength()} elements; indices are in elements, not bytes. */
        void row(long outIndex, long aIndex, long bIndex);
    }

    private final long[] outputShape;
    private final long outputCount;
    private final long rowLength;
    private final long aStep;
    private final long bStep;
    /** Merged dimensions above the row, outermost first, with each input's element stride (0 = stretched). */
    private final long[] outerDims;
    private final long[] aOuterStrides;
    private final long[] bOuterStrides;

    private BroadcastRows(long[] outputShape, long rowLength, long aStep, long bStep,
                          long[] outerDims, long[] aOuterStrides, long[] bOuterStrides) {
        this.outputShape = outputShape;
        this.outputCount = Shapes.elementCount(outputShape);
        this.rowLength = rowLength;
        this.aStep = aStep;
        this.bStep = bStep;
        this.outerDims = outerDims;
        this.aOuterStrides = aOuterStrides;
        this.bOuterStrides = bOuterStrides;
    }

    /**
     * The plan for inputs of shapes {@code a} and {@code b}; throws if they do not broadcast. The rows are the
     * innermost dimension of their {@link MergedBroadcast}, the dimensions above it the walk's odometer.
     */
    public static BroadcastRows of(long[] a, long[] b) {
        long[] out = Broadcasting.multidirectional(a, b);
        MergedBroadcast merged = MergedBroadcast.of(out, a, b);
        int outer = merged.rank() - 1;
        if (outer < 0) {
            // Every dimension is 1: one element from each input.
            return new BroadcastRows(out, 1, 1, 1, new long[0], new long[0], new long[0]);
        }
        long[] sizes = merged.sizes();
        long[][] strides = merged.strides();
        return new BroadcastRows(out, sizes[outer], strides[0][outer], strides[1][outer], Arrays.copyOf(sizes, outer),
                Arrays.copyOf(strides[0], outer), Arrays.copyOf(strides[1], outer));
    }

    public long[] outputShape() {
        return outputShape.clone();
    }

    public long outputCount() {
        return outputCount;
    }

    public long rowLength() {
        return rowLength;
    }

    /** 1 when input a advances along a row, 0 when it repeats one element. */
    public long aStep() {
        return aStep;
    }

    public long bStep() {
        return bStep;
    }

    /** Number of rows the output is cut into (after merging). */
    public long rowCount() {
        return outputCount == 0 ? 0 : outputCount / rowLength;
    }

    /** Calls {@code action} once per output row, in output order; input offsets are updated incrementally. */
    public void forEachRow(RowAction action) {
        forEachRow(action, newCounter());
    }

    /** A counter for {@link #forEachRow(RowAction, long[])}, to keep with this walk where Runs repeat it. */
    public long[] newCounter() {
        return new long[outerDims.length];
    }

    /** {@link #forEachRow(RowAction)} with the caller's counter from {@link #newCounter()} (its contents do not matter). */
    public void forEachRow(RowAction action, long[] counter) {
        long rows = rowCount();
        int depth = outerDims.length;
        Arrays.fill(counter, 0);
        long outIndex = 0;
        long aIndex = 0;
        long bIndex = 0;
        for (long r = 0; r < rows; r++) {
            action.row(outIndex, aIndex, bIndex);
            outIndex += rowLength;
            for (int d = depth - 1; d >= 0; d--) {
                aIndex += aOuterStrides[d];
                bIndex += bOuterStrides[d];
                if (++counter[d] < outerDims[d]) {
                    break;
                }
                counter[d] = 0;
                aIndex -= aOuterStrides[d] * outerDims[d];
                bIndex -= bOuterStrides[d] * outerDims[d];
            }
        }
    }
}
