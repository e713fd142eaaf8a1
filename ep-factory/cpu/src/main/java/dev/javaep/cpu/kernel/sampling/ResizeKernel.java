package dev.javaep.cpu.kernel.sampling;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.FloatAccess;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.SamplingOps;
import dev.javaep.spi.ops.SamplingOps.ResizeAttributes;
import dev.javaep.spi.ops.SamplingOps.ResizeGeometry;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Resize and Upsample on float32 or float16, every mode of {@link ResizeAttributes}; on int8, uint8 and int32
 * (images, masks, label maps) nearest only. The output shape comes from
 * the scales or sizes input's values ({@link ResizeGeometry}). Each resized axis's taps are worked out once per
 * output coordinate ({@link SamplingOps#resizeTaps}); each output element is then the weighted sum over every
 * combination of its axes' taps, in float (the order the CUDA kernel sums in), or tf_crop_and_resize's
 * extrapolation value where any axis falls outside the input.
 *
 * @param roiInput    the input index of roi, -1 where the version has none (likewise the others)
 * @param scalesInput the input index of scales; -1 for Upsample 7 (scales is an attribute)
 */
record ResizeKernel(String op, ResizeAttributes attributes, int roiInput, int scalesInput, int sizesInput)
        implements CpuKernel {

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        if (attributes.fixedScales() == null) {
            throw new IllegalArgumentException(op + ": the output shape depends on the values of scales or sizes");
        }
        return new long[][] {geometry(Shapes.checked(inputShapes[0]), null, null, null).output()};
    }

    @Override
    public long[][] outputShapes(List<? extends Tensor> inputs) {
        return new long[][] {geometry(inputs).output()};
    }

    private ResizeGeometry geometry(List<? extends Tensor> inputs) {
        return geometry(Shapes.checked(inputs.get(0).shape()), floats(input(inputs, roiInput)),
                floats(input(inputs, scalesInput)), longs(input(inputs, sizesInput)));
    }

    private ResizeGeometry geometry(long[] x, float[] roi, float[] scales, long[] sizes) {
        return ResizeGeometry.of(attributes, x, roi, scales, sizes);
    }

    private static Tensor input(List<? extends Tensor> inputs, int index) {
        return index < 0 || index >= inputs.size() ? null : inputs.get(index);
    }

    /** A float16, float or double tensor's values as float; null for an omitted one. */
    static float[] floats(Tensor t) {
        if (t == null) {
            return null;
        }
        int n = Math.toIntExact(t.elementCount());
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = switch (t.elementType()) {
                case FLOAT -> t.data().getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i);
                case FLOAT16 -> Float.float16ToFloat(t.data().getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i));
                case DOUBLE -> (float) t.data().getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i);
                default -> throw new IllegalArgumentException("Resize: a " + t.elementType() + " roi or scales");
            };
        }
        return values;
    }

    /** An int64 tensor's values; null for an omitted one. */
    static long[] longs(Tensor t) {
        return t == null ? null : t.data().toArray(ValueLayout.JAVA_LONG_UNALIGNED);
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        ResizeGeometry g = geometry(inputs);
        Shapes.requireOutputShape(op, outputs, g.output());
        Tensor y = outputs.get(0);
        if (y.elementCount() == 0) {
            return;
        }
        if (y.elementType() != inputs.get(0).elementType()) {
            throw new IllegalArgumentException(op + ": Y is " + y.elementType() + ", X " + inputs.get(0).elementType());
        }
        if (SamplingKernels.RESIZE_INTEGERS.contains(y.elementType())) {
            nearestIntegers(g, inputs.get(0), y);
            return;
        }
        FloatAccess in = FloatAccess.of(op, "X", inputs.get(0));
        FloatAccess out = FloatAccess.of(op, "Y", y);
        int rank = g.input().length;
        long[] inStrides = new long[rank];
        for (int d = rank - 1; d >= 0; d--) {
            inStrides[d] = Shapes.product(g.input(), d + 1, rank);
        }
        int[] axes = java.util.stream.IntStream.range(0, rank).filter(d -> g.resized()[d]).toArray();
        Taps[] taps = new Taps[axes.length];
        for (int k = 0; k < axes.length; k++) {
            taps[k] = Taps.of(attributes, g, axes[k]);
        }
        boolean extrapolates = attributes.transform() == SamplingOps.CoordinateTransform.TF_CROP_AND_RESIZE;
        long[] coordinate = new long[rank];
        int[] tap = new int[axes.length];
        long total = y.elementCount();
        for (long o = 0; o < total; o++) {
            long fixed = 0;
            for (int d = 0; d < rank; d++) {
                if (!g.resized()[d]) {
                    fixed += coordinate[d] * inStrides[d];
                }
            }
            boolean outside = false;
            for (int k = 0; k < axes.length && extrapolates; k++) {
                outside |= taps[k].outside[(int) coordinate[axes[k]]];
            }
            if (outside) {
                out.set(o, attributes.extrapolationValue());
            } else {
                java.util.Arrays.fill(tap, 0);
                float sum = 0f;
                while (true) {
                    float weight = 1f;
                    long offset = fixed;
                    for (int k = 0; k < axes.length; k++) {
                        int at = (int) coordinate[axes[k]] * taps[k].width + tap[k];
                        weight *= taps[k].weight[at];
                        offset += taps[k].index[at] * inStrides[axes[k]];
                    }
                    sum += weight * in.get(offset);
                    int k = axes.length - 1;
                    while (k >= 0 && ++tap[k] == taps[k].count[(int) coordinate[axes[k]]]) {
                        tap[k] = 0;
                        k--;
                    }
                    if (k < 0) {
                        break;
                    }
                }
                out.set(o, sum);
            }
            for (int d = rank - 1; d >= 0 && ++coordinate[d] == g.output()[d]; d--) {
                coordinate[d] = 0;
            }
        }
    }

    /**
     * Nearest on int8, uint8 or int32: each output element is a copy of its one tap's element (exact, whatever the
     * type), or tf_crop_and_resize's extrapolation value truncated toward zero (ONNX Runtime's static_cast).
     */
    private void nearestIntegers(ResizeGeometry g, Tensor x, Tensor y) {
        if (attributes.mode() != SamplingOps.Interpolation.NEAREST) {
            throw new IllegalArgumentException(op + ": JavaCpu resizes " + y.elementType() + " with mode nearest only");
        }
        int rank = g.input().length;
        long size = y.elementType().byteSize();
        long[] inStrides = new long[rank];
        for (int d = rank - 1; d >= 0; d--) {
            inStrides[d] = Shapes.product(g.input(), d + 1, rank);
        }
        Taps[] taps = new Taps[rank];
        for (int d = 0; d < rank; d++) {
            taps[d] = g.resized()[d] ? Taps.of(attributes, g, d) : null;
        }
        boolean extrapolates = attributes.transform() == SamplingOps.CoordinateTransform.TF_CROP_AND_RESIZE;
        long extrapolation = (long) attributes.extrapolationValue();
        long[] coordinate = new long[rank];
        long total = y.elementCount();
        for (long o = 0; o < total; o++) {
            long offset = 0;
            boolean outside = false;
            for (int d = 0; d < rank; d++) {
                int c = (int) coordinate[d];
                if (taps[d] == null) {
                    offset += coordinate[d] * inStrides[d];
                } else {
                    offset += taps[d].index[c * taps[d].width] * inStrides[d];
                    outside |= extrapolates && taps[d].outside[c];
                }
            }
            if (outside) {
                switch (y.elementType()) {
                    case INT8, UINT8 -> y.data().set(ValueLayout.JAVA_BYTE, o, (byte) extrapolation);
                    case INT32 -> y.data().setAtIndex(ValueLayout.JAVA_INT_UNALIGNED, o, (int) extrapolation);
                    default -> throw new IllegalArgumentException(op + ": no integer Resize of " + y.elementType());
                }
            } else {
                java.lang.foreign.MemorySegment.copy(x.data(), offset * size, y.data(), o * size, size);
            }
            for (int d = rank - 1; d >= 0 && ++coordinate[d] == g.output()[d]; d--) {
                coordinate[d] = 0;
            }
        }
    }

    /** One axis's taps for every output coordinate: {@code width} slots per coordinate, {@code count} of them used. */
    private record Taps(int width, int[] count, long[] index, float[] weight, boolean[] outside) {
        static Taps of(ResizeAttributes a, ResizeGeometry g, int d) {
            int length = Math.toIntExact(g.output()[d]);
            float scale = g.scales()[d];
            int width = a.maxTaps(scale);
            int[] count = new int[length];
            long[] index = new long[length * width];
            float[] weight = new float[length * width];
            boolean[] outside = new boolean[length];
            long[] i = new long[width];
            float[] w = new float[Math.max(width, 4)];
            for (int y = 0; y < length; y++) {
                float x = g.originalCoordinate(a, d, y);
                outside[y] = g.outside(x, d);
                count[y] = SamplingOps.resizeTaps(a, x, scale, g.input()[d], i, w);
                System.arraycopy(i, 0, index, y * width, count[y]);
                System.arraycopy(w, 0, weight, y * width, count[y]);
            }
            return new Taps(width, count, index, weight, outside);
        }
    }
}
