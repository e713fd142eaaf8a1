package dev.javaep.cpu.kernel.reduction;

import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ReductionOps.ReduceGeometry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

/**
 * ArgMax and ArgMin: the int64 index of the largest (smallest) element along {@code axis}; of equal extremes the
 * first, or with {@code selectLastIndex} the last. The input is walked as [outer, length, inner] in memory order:
 * each of the {@code length} rows of {@code inner} elements is compared with the best so far of every column.
 * Planned once per input shape ({@link ArgPlan}), so a Run of the same shape allocates nothing.
 */
record ArgReduceKernel(boolean max, long axis, boolean keepdims, boolean selectLastIndex, ElementType type)
        implements PlannedKernel {

    private String op() {
        return max ? "ArgMax" : "ArgMin";
    }

    private ReduceGeometry geometry(long[] shape) {
        return ReduceGeometry.of(op(), Shapes.checked(shape), new long[] {axis}, keepdims, false);
    }

    @Override
    public Plan plan(long[][] inputShapes) {
        long[] shape = inputShapes[0];
        if (shape.length == 0) {
            throw new IllegalArgumentException(op() + ": the input is a scalar, which has no axis");
        }
        return new ArgPlan(geometry(shape));
    }

    /**
     * The [outer, length, inner] walk of one input shape, with the best-so-far values, the row being compared and the
     * winning indices of one outer index: made at the first compute, reused by the Runs after it. Floating-point
     * elements are compared as doubles, integers as longs (an int64 does not fit a double).
     */
    private final class ArgPlan extends ShapedPlan {
        private final ReduceGeometry geometry;
        private final boolean floating = HostElements.isFloating(type);
        private final long outer;
        private final long length;
        private final long inner;
        private long[] index;
        private double[] best;
        private double[] row;
        private long[] wholeBest;
        private long[] wholeRow;

        ArgPlan(ReduceGeometry geometry) {
            super(new long[][] {geometry.outputShape()});
            this.geometry = geometry;
            long[] shape = geometry.inputShape();
            int a = Shapes.normalizeAxis(axis, shape.length, op());
            outer = Shapes.product(shape, 0, a);
            length = shape[a];
            inner = Shapes.product(shape, a + 1, shape.length);
        }

        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            Tensor x = inputs.getFirst();
            Tensor y = outputs.getFirst();
            Shapes.requireTypes(op(), x, type, y, ElementType.INT64);
            Shapes.requireOutputShapes(op(), outputs, outputShapes());
            if (geometry.outputCount() == 0) {
                return;
            }
            if (geometry.reducedCount() == 0) {
                throw new IllegalArgumentException(op() + ": axis " + axis + " of the input " + Arrays.toString(x.shape())
                        + " is empty: there is no extreme to index");
            }
            if (inner > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(op() + ": " + inner + " elements after the axis is more than javaep supports");
            }
            int width = (int) inner;
            if (index == null) {
                index = new long[width];
                best = floating ? new double[width] : null;
                row = floating ? new double[width] : null;
                wholeBest = floating ? null : new long[width];
                wholeRow = floating ? null : new long[width];
            }
            MemorySegment xs = x.data();
            for (long o = 0; o < outer; o++) {
                long base = o * length * inner;
                read(xs, base, width, true);
                Arrays.fill(index, 0);
                for (long r = 1; r < length; r++) {
                    read(xs, base + r * inner, width, false);
                    for (int s = 0; s < width; s++) {
                        if (takeIfBetter(s)) {
                            index[s] = r;
                        }
                    }
                }
                MemorySegment.copy(index, 0, y.data(), ValueLayout.JAVA_LONG_UNALIGNED, o * inner * Long.BYTES, width);
            }
        }

        /** Reads {@code width} elements from {@code from} into the best-so-far values, or else the row compared. */
        private void read(MemorySegment x, long from, int width, boolean intoBest) {
            if (floating) {
                HostElements.read(type, x, from, intoBest ? best : row, 0, width);
            } else {
                HostElements.read(type, x, from, intoBest ? wholeBest : wholeRow, width);
            }
        }

        /** Whether column {@code s} of the row beats the best so far, which it then becomes. */
        private boolean takeIfBetter(int s) {
            boolean better;
            if (floating) {
                double v = row[s];
                better = max ? (selectLastIndex ? v >= best[s] : v > best[s]) : (selectLastIndex ? v <= best[s] : v < best[s]);
                best[s] = better ? v : best[s];
            } else {
                long v = wholeRow[s];
                better = max ? (selectLastIndex ? v >= wholeBest[s] : v > wholeBest[s])
                        : (selectLastIndex ? v <= wholeBest[s] : v < wholeBest[s]);
                wholeBest[s] = better ? v : wholeBest[s];
            }
            return better;
        }
    }
}
