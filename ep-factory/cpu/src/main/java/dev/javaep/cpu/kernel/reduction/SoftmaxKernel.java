package dev.javaep.cpu.kernel.reduction;

import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ReductionOps.SoftmaxGeometry;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Softmax and LogSoftmax on float32, float16 and float64, every opset version.
 *
 * <p>Before opset 13 ({@code coerceTo2d}) the input is viewed as a matrix [d0*...*d(axis-1), d(axis)*...*d(n-1)]
 * and each row is normalised, so the "axis" spans all trailing dimensions; from 13 along the single dimension
 * {@code axis} ({@link SoftmaxGeometry}). Each slice has its maximum subtracted before {@code exp}, so large inputs
 * (e.g. 10000) give finite results; LogSoftmax is {@code (x - max) - log(sum(exp(x - max)))}, never the log of a
 * rounded softmax. Arithmetic is in double; results are rounded to the element type once. The geometry and the
 * slice buffers are planned once per input shape.
 */
record SoftmaxKernel(long axis, boolean coerceTo2d, boolean log, ElementType type) implements PlannedKernel {
    /** Columns of a strided softmax processed together (their running maxima and sums held in arrays). */
    private static final int COLUMNS = 256;

    /** The float32 Softmax. */
    SoftmaxKernel(long axis, boolean coerceTo2d) {
        this(axis, coerceTo2d, false, ElementType.FLOAT);
    }

    private String op() {
        return log ? "LogSoftmax" : "Softmax";
    }

    @Override
    public Plan plan(long[][] inputShapes) {
        long[][] shapes = Shapes.likeTheOnlyInput(op(), inputShapes);
        SoftmaxGeometry g = SoftmaxGeometry.of(op(), shapes[0], axis, coerceTo2d);
        if (g.length() > Integer.MAX_VALUE || g.inner() > Integer.MAX_VALUE
                || g.length() * Math.min(g.inner(), COLUMNS) > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(op() + ": a slice of " + g.length() + " x " + g.inner()
                    + " elements is more than javaep's CPU kernel holds");
        }
        return new SlicesPlan(g, shapes);
    }

    /** The geometry of one input shape and the slice buffers its Runs fill, made once. */
    private final class SlicesPlan extends ShapedPlan {
        private final SoftmaxGeometry g;
        private final boolean empty;
        /** A row (inner 1), or a [length, columns] block with each column's running max and sum. */
        private final double[] values;
        private final double[] max;
        private final double[] sum;

        SlicesPlan(SoftmaxGeometry g, long[][] outputShapes) {
            super(outputShapes);
            this.g = g;
            this.empty = Shapes.elementCount(outputShapes[0]) == 0;
            int length = (int) g.length();
            int columns = (int) Math.min(g.inner(), COLUMNS);
            boolean rows = empty || g.inner() == 1;
            this.values = new double[empty ? 0 : rows ? length : length * columns];
            this.max = rows ? null : new double[columns];
            this.sum = rows ? null : new double[columns];
        }

        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            Tensor x = inputs.getFirst();
            Shapes.requireOneToOne(op(), x, type, outputs, outputShapes()[0]);
            Tensor y = outputs.getFirst();
            if (empty) {
                return;
            }
            if (g.inner() == 1) {
                rows(x.data(), y.data(), g.outer(), (int) g.length(), values);
            } else {
                columns(x.data(), y.data(), g.outer(), (int) g.length(), g.inner(), values, max, sum);
            }
        }
    }

    /** Softmax of {@code rows} consecutive rows of {@code length} elements. */
    private void rows(MemorySegment x, MemorySegment y, long rows, int length, double[] row) {
        for (long r = 0, base = 0; r < rows; r++, base += length) {
            HostElements.read(type, x, base, row, 0, length);
            double max = Double.NEGATIVE_INFINITY;
            for (int i = 0; i < length; i++) {
                max = Math.max(max, row[i]);
            }
            double sum = 0;
            for (int i = 0; i < length; i++) {
                sum += Math.exp(row[i] - max);
            }
            finish(row, 0, 1, length, max, sum);
            HostElements.write(type, y, base, row, 0, length);
        }
    }

    /**
     * Softmax along a dimension of {@code length} whose elements are {@code inner} apart: for each outer index,
     * up to {@link #COLUMNS} neighbouring columns at a time are read row by row (in memory order) into a
     * [length, width] block, normalised there and written back. {@code max} and {@code sum}: the block's columns.
     */
    private void columns(MemorySegment x, MemorySegment y, long outer, int length, long inner, double[] block,
                         double[] max, double[] sum) {
        int columns = max.length;
        for (long o = 0; o < outer; o++) {
            long base = o * length * inner;
            for (long s0 = 0; s0 < inner; s0 += columns) {
                int width = (int) Math.min(columns, inner - s0);
                for (int k = 0; k < length; k++) {
                    HostElements.read(type, x, base + k * inner + s0, block, k * width, width);
                }
                java.util.Arrays.fill(max, Double.NEGATIVE_INFINITY);
                java.util.Arrays.fill(sum, 0);
                for (int k = 0, at = 0; k < length; k++) {
                    for (int s = 0; s < width; s++, at++) {
                        max[s] = Math.max(max[s], block[at]);
                    }
                }
                for (int k = 0, at = 0; k < length; k++) {
                    for (int s = 0; s < width; s++, at++) {
                        sum[s] += Math.exp(block[at] - max[s]);
                    }
                }
                for (int s = 0; s < width; s++) {
                    finish(block, s, width, length, max[s], sum[s]);
                }
                for (int k = 0; k < length; k++) {
                    HostElements.write(type, y, base + k * inner + s0, block, k * width, width);
                }
            }
        }
    }

    /** Replaces the slice {@code v[from + i*step]}, i < n, by its softmax (or log-softmax) given its max and sum. */
    private void finish(double[] v, int from, int step, int n, double max, double sum) {
        if (log) {
            double logSum = Math.log(sum);
            for (int i = 0, at = from; i < n; i++, at += step) {
                v[at] = (v[at] - max) - logSum; // x - max is exact where x and max are large
            }
        } else {
            double inverse = 1.0 / sum;
            for (int i = 0, at = from; i < n; i++, at += step) {
                v[at] = Math.exp(v[at] - max) * inverse;
            }
        }
    }
}
