package dev.javaep.cpu.kernel.reduction;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;

/**
 * Softmax on float32.
 *
 * <p>Before opset 13 ({@code coerceTo2d}) the input is viewed as a matrix [d0*...*d(axis-1),
 * d(axis)*...*d(n-1)] and each row is normalized, so the "axis" spans all trailing dimensions. From
 * opset 13 the softmax runs along the single dimension {@code axis}.
 *
 * <p>Each slice has its maximum subtracted before {@code exp}, so large inputs (e.g. 10000) give
 * finite results; sums are kept in double.
 */
record SoftmaxKernel(long axis, boolean coerceTo2d) implements CpuKernel {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;

    /** The default {@code axis} for a Softmax of this opset version. */
    static long defaultAxis(int sinceVersion) {
        return sinceVersion < 13 ? 1 : -1;
    }

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        if (inputShapes.length != 1) {
            throw new IllegalArgumentException("Softmax takes 1 input, got " + inputShapes.length);
        }
        long[] x = Shapes.checked(inputShapes[0]);
        Shapes.normalizeAxis(axis, x.length, "Softmax");
        return new long[][] {x.clone()};
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor x = inputs.get(0);
        Tensor y = outputs.get(0);
        Shapes.requireType("Softmax", "input", x, ElementType.FLOAT);
        Shapes.requireType("Softmax", "output", y, ElementType.FLOAT);
        long[] shape = x.shape();
        Shapes.requireOutputShapes("Softmax", outputs, new long[][] {shape});
        int ax = Shapes.normalizeAxis(axis, shape.length, "Softmax");
        if (x.elementCount() == 0) {
            return;
        }
        long outer = Shapes.product(shape, 0, ax);
        if (coerceTo2d) {
            contiguousRows(x.data(), y.data(), outer, Shapes.product(shape, ax, shape.length));
            return;
        }
        long length = shape[ax];
        long inner = Shapes.product(shape, ax + 1, shape.length);
        if (inner == 1) {
            contiguousRows(x.data(), y.data(), outer, length);
        } else {
            strided(x.data(), y.data(), outer, length, inner);
        }
    }

    /** Softmax of {@code rows} consecutive rows of {@code length} elements. */
    private static void contiguousRows(MemorySegment x, MemorySegment y, long rows, long length) {
        for (long r = 0, base = 0; r < rows; r++, base += length) {
            float max = Float.NEGATIVE_INFINITY;
            for (long i = 0; i < length; i++) {
                max = Math.max(max, x.getAtIndex(F, base + i));
            }
            double sum = 0;
            for (long i = 0; i < length; i++) {
                float e = (float) Math.exp(x.getAtIndex(F, base + i) - max);
                y.setAtIndex(F, base + i, e);
                sum += e;
            }
            double inverse = 1.0 / sum;
            for (long i = 0; i < length; i++) {
                y.setAtIndex(F, base + i, (float) (y.getAtIndex(F, base + i) * inverse));
            }
        }
    }

    /**
     * Softmax along a dimension of {@code length} whose elements are {@code inner} apart. All
     * {@code inner} slices of one outer index are processed together, walking memory in order,
     * with their running maxima and sums in arrays.
     */
    private static void strided(MemorySegment x, MemorySegment y, long outer, long length, long inner) {
        if (inner > Integer.MAX_VALUE) {
            throw new IllegalArgumentException("Softmax: " + inner + " elements after the softmax axis is more than"
                    + " javaep supports (" + Integer.MAX_VALUE + ")");
        }
        int width = (int) inner;
        float[] max = new float[width];
        double[] sum = new double[width];
        for (long o = 0; o < outer; o++) {
            long base = o * length * inner;
            Arrays.fill(max, Float.NEGATIVE_INFINITY);
            Arrays.fill(sum, 0);
            for (long k = 0, at = base; k < length; k++) {
                for (int s = 0; s < width; s++, at++) {
                    max[s] = Math.max(max[s], x.getAtIndex(F, at));
                }
            }
            for (long k = 0, at = base; k < length; k++) {
                for (int s = 0; s < width; s++, at++) {
                    float e = (float) Math.exp(x.getAtIndex(F, at) - max[s]);
                    y.setAtIndex(F, at, e);
                    sum[s] += e;
                }
            }
            for (int s = 0; s < width; s++) {
                sum[s] = 1.0 / sum[s];
            }
            for (long k = 0, at = base; k < length; k++) {
                for (int s = 0; s < width; s++, at++) {
                    y.setAtIndex(F, at, (float) (y.getAtIndex(F, at) * sum[s]));
                }
            }
        }
    }
}
