package dev.javaep.cpu.kernel.reduction;

import dev.javaep.cpu.kernel.CpuKernel;
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
 */
record ReduceKernel(ReduceAttributes attributes, ElementType type) implements CpuKernel {
    /** Elements converted per run: long rows are walked in pieces of this many. */
    private static final int CHUNK = 4096;

    private Reduction reduction() {
        return attributes.reduction();
    }

    private String op() {
        return reduction().opType();
    }

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        if (attributes.axesFromInput() && inputShapes.length > 1 && inputShapes[1] != null
                && Shapes.elementCount(inputShapes[1]) > 0) {
            throw new IllegalArgumentException(op() + ": the output shape depends on the values of input 'axes'");
        }
        return new long[][] {geometry(inputShapes[0], null).outputShape()};
    }

    @Override
    public long[][] outputShapes(List<? extends Tensor> inputs) {
        return new long[][] {geometry(inputs).outputShape()};
    }

    private ReduceGeometry geometry(long[] shape, long[] inputAxes) {
        return attributes.geometry(Shapes.checked(shape), inputAxes);
    }

    private ReduceGeometry geometry(List<? extends Tensor> inputs) {
        Tensor axes = inputs.size() > 1 ? inputs.get(1) : null;
        long[] values = null;
        if (attributes.axesFromInput() && axes != null) {
            Shapes.requireType(op(), "input axes", axes, ElementType.INT64);
            if (axes.shape().length > 1) {
                throw new IllegalArgumentException(op() + ": axes must be 1-D, got shape " + Arrays.toString(axes.shape()));
            }
            values = axes.data().toArray(ValueLayout.JAVA_LONG_UNALIGNED);
        }
        return geometry(inputs.getFirst().shape(), values);
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor x = inputs.getFirst();
        Tensor y = outputs.getFirst();
        Shapes.requireTypes(op(), x, type, y, type);
        ReduceGeometry g = geometry(inputs);
        Shapes.requireOutputShape(op(), outputs, g.outputShape());
        if (g.outputCount() == 0) {
            return;
        }
        if (g.outputCount() > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(op() + ": " + g.outputCount() + " outputs is more than javaep's CPU reduction holds");
        }
        if (HostElements.isFloating(type)) {
            reduceFloating(x.data(), y.data(), g);
        } else {
            reduceIntegers(x.data(), y.data(), g);
        }
    }

    // ---- floating point -------------------------------------------------------------------------------

    private void reduceFloating(MemorySegment x, MemorySegment y, ReduceGeometry g) {
        int outputs = (int) g.outputCount();
        double[] acc = new double[outputs];
        if (g.reducedCount() == 0) {
            Arrays.fill(acc, reduction().emptyValue());
            HostElements.write(type, y, 0, acc, 0, outputs);
            return;
        }
        double[] shift = null;
        if (reduction() == Reduction.LOG_SUM_EXP) {
            shift = new double[outputs];
            Arrays.fill(shift, Double.NEGATIVE_INFINITY);
            walk(x, g.groups(), shift, Reduction.MAX, null);
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
        walk(x, g.groups(), acc, reduction(), shift);
        double count = g.reducedCount();
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

    /** Folds every input element into {@code acc[its output]} with {@code how}'s arithmetic. */
    private void walk(MemorySegment x, Groups groups, double[] acc, Reduction how, double[] shift) {
        double[] buffer = new double[chunkCapacity(groups)];
        forEachChunk(groups, buffer.length, (start, n, out, spread) -> {
            HostElements.read(type, x, start, buffer, 0, n);
            fold(how, buffer, n, acc, out, spread, shift);
        });
    }

    /** Consecutive input elements {@code [start, start + n)} of one innermost row, and the outputs they fold into. */
    @FunctionalInterface
    private interface ChunkFold {
        /** Into {@code acc[out + j]} for element j when {@code spread}, else all into {@code acc[out]}. */
        void fold(long start, int n, int out, boolean spread);
    }

    private static int chunkCapacity(Groups groups) {
        long[] sizes = groups.sizes();
        long innerSize = sizes.length == 0 ? 1 : sizes[sizes.length - 1]; // depth 0: a tensor of one element
        return (int) Math.min(innerSize, CHUNK);
    }

    /**
     * Walks the input in memory order, in chunks of at most {@code capacity} elements that never cross an innermost
     * row, so that each chunk folds either into as many consecutive outputs (the innermost axis is kept) or into one.
     */
    private static void forEachChunk(Groups groups, int capacity, ChunkFold chunk) {
        long[] sizes = groups.sizes();
        boolean[] reduced = groups.reduced();
        int depth = sizes.length;
        long[] outStride = new long[depth];
        for (int d = depth - 1, s = 1; d >= 0; d--) {
            outStride[d] = reduced[d] ? 0 : s;
            s *= reduced[d] ? 1 : (int) sizes[d];
        }
        long innerSize = depth == 0 ? 1 : sizes[depth - 1];
        boolean innerKept = depth > 0 && !reduced[depth - 1];
        long[] counter = new long[Math.max(0, depth - 1)];
        long total = Shapes.elementCount(sizes);
        int outBase = 0;
        for (long at = 0; at < total; at += innerSize) {
            for (long c = 0; c < innerSize; c += capacity) {
                int n = (int) Math.min(capacity, innerSize - c);
                chunk.fold(at + c, n, innerKept ? outBase + (int) c : outBase, innerKept);
            }
            for (int d = depth - 2; d >= 0; d--) {
                outBase += (int) outStride[d];
                if (++counter[d] < sizes[d]) {
                    break;
                }
                counter[d] = 0;
                outBase -= (int) (outStride[d] * sizes[d]);
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

    // ---- integers: Sum, Prod, Max, Min -------------------------------------------------------------------

    private void reduceIntegers(MemorySegment x, MemorySegment y, ReduceGeometry g) {
        int outputs = (int) g.outputCount();
        long initial = switch (reduction()) {
            case MAX -> HostElements.extreme(type, false);
            case MIN -> HostElements.extreme(type, true);
            case PROD -> 1;
            case SUM -> 0;
            default -> throw new IllegalStateException(op() + " on " + type + " has no integer kernel");
        };
        long[] acc = new long[outputs];
        Arrays.fill(acc, initial);
        if (g.reducedCount() > 0) {
            walkIntegers(x, g.groups(), acc);
        }
        for (int o = 0; o < outputs; o++) {
            HostElements.write(type, y, o, acc[o]);
        }
    }

    private void walkIntegers(MemorySegment x, Groups groups, long[] acc) {
        long[] buffer = new long[chunkCapacity(groups)];
        Reduction how = reduction();
        forEachChunk(groups, buffer.length, (start, n, out, spread) -> {
            HostElements.read(type, x, start, buffer, n);
            for (int j = 0; j < n; j++) {
                int o = spread ? out + j : out;
                acc[o] = switch (how) {
                    case MAX -> Math.max(acc[o], buffer[j]);
                    case MIN -> Math.min(acc[o], buffer[j]);
                    case PROD -> acc[o] * buffer[j];
                    default -> acc[o] + buffer[j];
                };
            }
        });
    }
}
