package dev.javaep.cpu.kernel.reduction;

import dev.javaep.cpu.kernel.CpuKernel;
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
 */
record ArgReduceKernel(boolean max, long axis, boolean keepdims, boolean selectLastIndex, ElementType type)
        implements CpuKernel {

    private String op() {
        return max ? "ArgMax" : "ArgMin";
    }

    private ReduceGeometry geometry(long[] shape) {
        return ReduceGeometry.of(op(), Shapes.checked(shape), new long[] {axis}, keepdims, false);
    }

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        if (inputShapes[0].length == 0) {
            throw new IllegalArgumentException(op() + ": the input is a scalar, which has no axis");
        }
        return new long[][] {geometry(inputShapes[0]).outputShape()};
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor x = inputs.getFirst();
        Tensor y = outputs.getFirst();
        Shapes.requireTypes(op(), x, type, y, ElementType.INT64);
        long[][] expected = outputShapes(new long[][] {x.shape()});
        Shapes.requireOutputShapes(op(), outputs, expected);
        ReduceGeometry g = geometry(x.shape());
        if (g.outputCount() == 0) {
            return;
        }
        if (g.reducedCount() == 0) {
            throw new IllegalArgumentException(op() + ": axis " + axis + " of the input " + Arrays.toString(x.shape())
                    + " is empty: there is no extreme to index");
        }
        long[] shape = x.shape();
        int a = Shapes.normalizeAxis(axis, shape.length, op());
        long outer = Shapes.product(shape, 0, a);
        long length = shape[a];
        long inner = Shapes.product(shape, a + 1, shape.length);
        if (inner > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(op() + ": " + inner + " elements after the axis is more than javaep supports");
        }
        int width = (int) inner;
        long[] index = new long[width];
        MemorySegment xs = x.data();
        MemorySegment ys = y.data();
        if (HostElements.isFloating(type)) {
            double[] best = new double[width];
            double[] row = new double[width];
            for (long o = 0; o < outer; o++) {
                long base = o * length * inner;
                HostElements.read(type, xs, base, best, 0, width);
                Arrays.fill(index, 0);
                for (long r = 1; r < length; r++) {
                    HostElements.read(type, xs, base + r * inner, row, 0, width);
                    for (int s = 0; s < width; s++) {
                        double v = row[s];
                        boolean better = max ? (selectLastIndex ? v >= best[s] : v > best[s])
                                : (selectLastIndex ? v <= best[s] : v < best[s]);
                        if (better) {
                            best[s] = v;
                            index[s] = r;
                        }
                    }
                }
                MemorySegment.copy(index, 0, ys, ValueLayout.JAVA_LONG_UNALIGNED, o * inner * Long.BYTES, width);
            }
        } else {
            long[] best = new long[width];
            long[] row = new long[width];
            for (long o = 0; o < outer; o++) {
                long base = o * length * inner;
                HostElements.read(type, xs, base, best, width);
                Arrays.fill(index, 0);
                for (long r = 1; r < length; r++) {
                    HostElements.read(type, xs, base + r * inner, row, width);
                    for (int s = 0; s < width; s++) {
                        long v = row[s];
                        boolean better = max ? (selectLastIndex ? v >= best[s] : v > best[s])
                                : (selectLastIndex ? v <= best[s] : v < best[s]);
                        if (better) {
                            best[s] = v;
                            index[s] = r;
                        }
                    }
                }
                MemorySegment.copy(index, 0, ys, ValueLayout.JAVA_LONG_UNALIGNED, o * inner * Long.BYTES, width);
            }
        }
    }
}
