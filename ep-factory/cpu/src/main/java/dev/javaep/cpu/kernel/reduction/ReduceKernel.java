package dev.javaep.cpu.kernel.reduction;

import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ReductionOps.Groups;
import dev.javaep.spi.ops.ReductionOps.ReduceAttributes;
import dev.javaep.spi.ops.ReductionOps.ReduceGeometry;
import dev.javaep.spi.ops.ReductionOps.Reduction;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

/**
 * ReduceSum/Mean/Max/Min/Prod/L1/L2/SumSquare/LogSum/LogSumExp, every opset version: axes from the attribute or
 * from input 1 (whose values this kernel reads, so the output shape follows them at Run).
 *
 * <p>The input is read once, in memory order, as the groups of {@link ReduceGeometry#groups} (size-1 dimensions
 * dropped, neighbouring reduced or kept dimensions merged): along the innermost group an element either belongs to
 * the next output (a kept group: {@code acc[o + j] += x[j]}) or to the same one (a reduced group:
 * {@code acc[o] += x[j]}); an odometer over the outer groups moves the output index. Float32, float16 and float64
 * are accumulated in double; integers (Sum, Prod, Max, Min) in long, wrapping as the element type does.
 * LogSumExp makes two passes, the first finding each output's maximum so that {@code exp} never overflows.
 *
 * <p>Planned once per input shape and axes values ({@link ReducePlan}): the geometry, the walk's odometer and the
 * accumulators are the plan's, so a Run of the same shapes allocates nothing.
 */
record ReduceKernel(ReduceAttributes attributes, ElementType type) implements PlannedKernel {
    /** Elements converted per run: long rows are walked in pieces of this many. */
    private static final int CHUNK = 4096;
    /** {@link Plan#valueInputs()} of a plan made from the values of input 1, the axes. */
    private static final long AXES_VALUES = 1L << 1;

    private Reduction reduction() {
        return attributes.reduction();
    }

    private String op() {
        return reduction().opType();
    }

    @Override
    public Plan plan(long[][] inputShapes) {
        if (attributes.axesFromInput() && inputShapes.length > 1 && inputShapes[1] != null
                && Shapes.elementCount(inputShapes[1]) > 0) {
            throw new IllegalArgumentException(op() + ": the output shape depends on the values of input 'axes'");
        }
        return new ReducePlan(geometry(inputShapes[0], null), 0);
    }

    @Override
    public Plan plan(List<? extends Tensor> inputs) {
        Tensor axes = inputs.size() > 1 ? inputs.get(1) : null;
        if (!attributes.axesFromInput() || axes == null) {
            return new ReducePlan(geometry(inputs.getFirst().shape(), null), 0);
        }
        Shapes.requireType(op(), "input axes", axes, ElementType.INT64);
        if (axes.shape().length > 1) {
            throw new IllegalArgumentException(op() + ": axes must be 1-D, got shape " + Arrays.toString(axes.shape()));
        }
        long[] values = axes.data().toArray(ValueLayout.JAVA_LONG_UNALIGNED);
        return new ReducePlan(geometry(inputs.getFirst().shape(), values), AXES_VALUES);
    }

    private ReduceGeometry geometry(long[] shape, long[] inputAxes) {
        return attributes.geometry(Shapes.checked(shape), inputAxes);
    }

    /**
     * The reduction of one input shape (and axes): the walk over {@link ReduceGeometry#groups} in chunks that never
     * cross an innermost row, so that each chunk folds either into as many consecutive outputs (the innermost group
     * is kept) or into one; an odometer over the outer groups moves the output index. The accumulators and the
     * chunk buffer are made at the first compute (a plan asked only for its output shapes needs none) and reused.
     */
    private final class ReducePlan extends ShapedPlan {
        private final ReduceGeometry geometry;
        private final boolean floating = HostElements.isFloating(type);
        private final long[] sizes;
        /** Per outer group, how far the output index moves per step along it (0 for a reduced group). */
        private final long[] outStride;
        /** The odometer over the outer groups. */
        private final long[] counter;
        private final long innerSize;
        private final boolean innerKept;
        private final long total;
        private final int capacity;
        private double[] acc;
        private double[] shift;
        private double[] buffer;
        private long[] wholeAcc;
        private long[] wholeBuffer;

        ReducePlan(ReduceGeometry geometry, long valueInputs) {
            super(new long[][] {geometry.outputShape()}, valueInputs);
            this.geometry = geometry;
            Groups groups = geometry.groups();
            sizes = groups.sizes();
            boolean[] reduced = groups.reduced();
            int depth = sizes.length;
            outStride = new long[depth];
            for (int d = depth - 1, s = 1; d >= 0; d--) {
                outStride[d] = reduced[d] ? 0 : s;
                s *= reduced[d] ? 1 : (int) sizes[d];
            }
            innerSize = depth == 0 ? 1 : sizes[depth - 1]; // depth 0: a tensor of one element
            innerKept = depth > 0 && !reduced[depth - 1];
            counter = new long[Math.max(0, depth - 1)];
            total = Shapes.elementCount(sizes);
            capacity = (int) Math.min(innerSize, CHUNK);
        }

        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            Tensor x = inputs.getFirst();
            Shapes.requireOneToOne(op(), x, type, outputs, outputShapes()[0]);
            Tensor y = outputs.getFirst();
            if (geometry.outputCount() == 0) {
                return;
            }
            if (geometry.outputCount() > Integer.MAX_VALUE) {
                throw new IllegalArgumentException(op() + ": " + geometry.outputCount() + " outputs is more than javaep's CPU reduction holds");
            }
            if (floating) {
                reduceFloating(x.data(), y.data());
            } else {
                reduceIntegers(x.data(), y.data());
            }
        }

        // ---- floating point -------------------------------------------------------------------------------

        private void reduceFloating(MemorySegment x, MemorySegment y) {
            int outputs = (int) geometry.outputCount();
            if (acc == null) {
                acc = new double[outputs];
                buffer = new double[capacity];
                shift = reduction() == Reduction.LOG_SUM_EXP ? new double[outputs] : null;
            }
            if (geometry.reducedCount() == 0) {
                Arrays.fill(acc, reduction().emptyValue());
                HostElements.write(type, y, 0, acc, 0, outputs);
                return;
            }
            if (shift != null) {
                Arrays.fill(shift, Double.NEGATIVE_INFINITY);
                walk(x, Reduction.MAX, shift);
                for (int o = 0; o < outputs; o++) {
                    // an infinite maximum is the answer already; shifting by it would make inf - inf
                    shift[o] = Double.isInfinite(shift[o]) ? 0 : shift[o];
                }
            }
            Arrays.fill(acc, switch (reduction()) {
                case MAX -> Double.NEGATIVE_INFINITY;
                case MIN -> Double.POSITIVE_INFINITY;
                case PROD -> 1;
                default -> 0;
            });
            walk(x, reduction(), acc);
            double count = geometry.reducedCount();
            for (int o = 0; o < outputs; o++) {
                acc[o] = switch (reduction()) {
                    case MEAN -> acc[o] / count;
                    case L2 -> Math.sqrt(acc[o]);
                    case LOG_SUM -> Math.log(acc[o]);
                    case LOG_SUM_EXP -> Math.log(acc[o]) + shift[o];
                    default -> acc[o];
                };
            }
            HostElements.write(type, y, 0, acc, 0, outputs);
        }

        /**
         * Walks the input in memory order, chunk by chunk, folding each element into {@code into[its output]} with
         * {@code how}'s arithmetic ({@code into}: the floating accumulators; integers fold into {@link #wholeAcc}).
         */
        private void walk(MemorySegment x, Reduction how, double[] into) {
            Arrays.fill(counter, 0);
            int outBase = 0;
            for (long at = 0; at < total; at += innerSize) {
                for (long c = 0; c < innerSize; c += capacity) {
                    int n = (int) Math.min(capacity, innerSize - c);
                    int out = innerKept ? outBase + (int) c : outBase;
                    if (floating) {
                        HostElements.read(type, x, at + c, buffer, 0, n);
                        fold(how, buffer, n, into, out, innerKept, shift);
                    } else {
                        HostElements.read(type, x, at + c, wholeBuffer, n);
                        foldWhole(how, wholeBuffer, n, wholeAcc, out, innerKept);
                    }
                }
                outBase = nextRowOutput(outBase);
            }
        }

        /** The output index of the next innermost row after one at {@code outBase}: the odometer moves one step. */
        private int nextRowOutput(int outBase) {
            for (int d = counter.length - 1; d >= 0; d--) {
                outBase += (int) outStride[d];
                if (++counter[d] < sizes[d]) {
                    break;
                }
                counter[d] = 0;
                outBase -= (int) (outStride[d] * sizes[d]);
            }
            return outBase;
        }

        // ---- integers: Sum, Prod, Max, Min -------------------------------------------------------------------

        private void reduceIntegers(MemorySegment x, MemorySegment y) {
            int outputs = (int) geometry.outputCount();
            long initial = switch (reduction()) {
                case MAX -> HostElements.extreme(type, false);
                case MIN -> HostElements.extreme(type, true);
                case PROD -> 1;
                case SUM -> 0;
                default -> throw new IllegalStateException(op() + " on " + type + " has no integer kernel");
            };
            if (wholeAcc == null) {
                wholeAcc = new long[outputs];
                wholeBuffer = new long[capacity];
            }
            Arrays.fill(wholeAcc, initial);
            if (geometry.reducedCount() > 0) {
                walk(x, reduction(), null);
            }
            for (int o = 0; o < outputs; o++) {
                HostElements.write(type, y, o, wholeAcc[o]);
            }
        }
    }

    /**
     * Folds {@code values[0..n)} into {@code acc}: into {@code acc[o + j]} when {@code spread} (the values belong to
     * consecutive outputs), else all into {@code acc[o]}.
     */
    private static void fold(Reduction how, double[] values, int n, double[] acc, int o, boolean spread, double[] shift) {
        if (spread) {
            switch (how) {
                case MAX -> { for (int j = 0; j < n; j++) acc[o + j] = max(acc[o + j], values[j]); }
                case MIN -> { for (int j = 0; j < n; j++) acc[o + j] = min(acc[o + j], values[j]); }
                case PROD -> { for (int j = 0; j < n; j++) acc[o + j] *= values[j]; }
                case L1 -> { for (int j = 0; j < n; j++) acc[o + j] += Math.abs(values[j]); }
                case L2, SUM_SQUARE -> { for (int j = 0; j < n; j++) acc[o + j] += values[j] * values[j]; }
                case LOG_SUM_EXP -> { for (int j = 0; j < n; j++) acc[o + j] += Math.exp(values[j] - shift[o + j]); }
                case SUM, MEAN, LOG_SUM -> { for (int j = 0; j < n; j++) acc[o + j] += values[j]; }
            }
            return;
        }
        double t = acc[o];
        switch (how) {
            case MAX -> { for (int j = 0; j < n; j++) t = max(t, values[j]); }
            case MIN -> { for (int j = 0; j < n; j++) t = min(t, values[j]); }
            case PROD -> { for (int j = 0; j < n; j++) t *= values[j]; }
            case L1 -> { for (int j = 0; j < n; j++) t += Math.abs(values[j]); }
            case L2, SUM_SQUARE -> { for (int j = 0; j < n; j++) t += values[j] * values[j]; }
            case LOG_SUM_EXP -> {
                double s = shift[o];
                for (int j = 0; j < n; j++) t += Math.exp(values[j] - s);
            }
            case SUM, MEAN, LOG_SUM -> { for (int j = 0; j < n; j++) t += values[j]; }
        }
        acc[o] = t;
    }

    /** Math.max propagates NaN, as a reduction over values containing NaN should. */
    private static double max(double a, double b) {
        return Math.max(a, b);
    }

    private static double min(double a, double b) {
        return Math.min(a, b);
    }

    /** Folds {@code values[0..n)} into {@code acc} as {@link #fold} does, for integers. */
    private static void foldWhole(Reduction how, long[] values, int n, long[] acc, int out, boolean spread) {
        for (int j = 0; j < n; j++) {
            int o = spread ? out + j : out;
            acc[o] = switch (how) {
                case MAX -> Math.max(acc[o], values[j]);
                case MIN -> Math.min(acc[o], values[j]);
                case PROD -> acc[o] * values[j];
                default -> acc[o] + values[j];
            };
        }
    }
}
