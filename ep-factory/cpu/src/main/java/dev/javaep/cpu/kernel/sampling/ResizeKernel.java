package dev.javaep.cpu.kernel.sampling;

import dev.javaep.cpu.kernel.FloatAccess;
import dev.javaep.cpu.kernel.PlannedKernel;
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
 * extrapolation value where any axis falls outside the input. The geometry and the taps are worked out once per plan
 * (input shapes and the roi, scales and sizes values). Where only the last two axes are resized (NCHW planes: U-Net's
 * nearest and bilinear 2× upsampling) without extrapolation, each output row walks its precomputed row and column taps
 * directly, in the same order and so to the same floats, and a row of nearest taps that repeats the row before it is
 * copied.
 *
 * @param roiInput    the input index of roi, -1 where the version has none (likewise the others)
 * @param scalesInput the input index of scales; -1 for Upsample 7 (scales is an attribute)
 */
record ResizeKernel(String op, ResizeAttributes attributes, int roiInput, int scalesInput, int sizesInput)
        implements PlannedKernel {

    @Override
    public Plan plan(long[][] inputShapes) {
        if (attributes.fixedScales() == null) {
            throw new IllegalArgumentException(op + ": the output shape depends on the values of scales or sizes");
        }
        return new ResizePlan(geometry(Shapes.checked(inputShapes[0]), null, null, null), 0);
    }

    @Override
    public Plan plan(List<? extends Tensor> inputs) {
        long valueInputs = 0;
        for (int index : new int[] {roiInput, scalesInput, sizesInput}) {
            if (input(inputs, index) != null) {
                valueInputs |= 1L << index;
            }
        }
        return new ResizePlan(geometry(inputs), valueInputs);
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

    /** The geometry and every resized axis's taps of one set of input shapes and roi/scales/sizes values. */
    private final class ResizePlan extends ShapedPlan {
        private final ResizeGeometry g;
        private final long[] inStrides;
        private final int[] axes;
        private final Taps[] taps;
        private final boolean extrapolates;
        /** Row and column taps of the last two axes (the identity for one not resized); null off the plane path. */
        private final Taps rowTaps;
        private final Taps columnTaps;
        // scratch of the general walk (a plan serves one thread at a time)
        private final long[] coordinate;
        private final int[] tap;

        ResizePlan(ResizeGeometry g, long valueInputs) {
            super(new long[][] {g.output()}, valueInputs);
            this.g = g;
            int rank = g.input().length;
            inStrides = new long[rank];
            for (int d = rank - 1; d >= 0; d--) {
                inStrides[d] = Shapes.product(g.input(), d + 1, rank);
            }
            axes = java.util.stream.IntStream.range(0, rank).filter(d -> g.resized()[d]).toArray();
            taps = new Taps[axes.length];
            for (int k = 0; k < axes.length; k++) {
                taps[k] = Taps.of(attributes, g, axes[k]);
            }
            extrapolates = attributes.transform() == SamplingOps.CoordinateTransform.TF_CROP_AND_RESIZE;
            boolean planes = rank >= 2 && !extrapolates && Shapes.product(g.output(), 0, rank) > 0
                    && java.util.Arrays.stream(axes).allMatch(d -> d >= rank - 2);
            rowTaps = planes ? axisTaps(rank - 2) : null;
            columnTaps = planes ? axisTaps(rank - 1) : null;
            coordinate = new long[rank];
            tap = new int[axes.length];
        }

        private Taps axisTaps(int d) {
            for (int k = 0; k < axes.length; k++) {
                if (axes[k] == d) {
                    return taps[k];
                }
            }
            return Taps.identity(Math.toIntExact(g.input()[d]));
        }

        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
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
            } else if (rowTaps != null) {
                planes(FloatAccess.of(op, "X", inputs.get(0)), FloatAccess.of(op, "Y", y), y);
            } else {
                general(FloatAccess.of(op, "X", inputs.get(0)), FloatAccess.of(op, "Y", y), y.elementCount());
            }
        }

        /**
         * Only the last two axes resized, nothing extrapolated: per plane and output row, the sum over the row's taps
         * and each column's taps (row taps outer, as {@link #general} combines them); a nearest row whose one tap
         * is the previous row's is a copy of that output row.
         */
        private void planes(FloatAccess in, FloatAccess out, Tensor y) {
            int rank = g.input().length;
            int outRows = Math.toIntExact(g.output()[rank - 2]);
            int outColumns = Math.toIntExact(g.output()[rank - 1]);
            long inPlane = g.input()[rank - 2] * g.input()[rank - 1];
            long inColumns = g.input()[rank - 1];
            long outPlane = (long) outRows * outColumns;
            long planes = y.elementCount() / outPlane;
            long rowBytes = (long) outColumns * y.elementType().byteSize();
            Taps r = rowTaps;
            Taps c = columnTaps;
            for (long plane = 0; plane < planes; plane++) {
                long inBase = plane * inPlane;
                long outBase = plane * outPlane;
                for (int oy = 0; oy < outRows; oy++) {
                    long o = outBase + (long) oy * outColumns;
                    int rAt = oy * r.width;
                    if (oy > 0 && r.count[oy] == 1 && r.count[oy - 1] == 1 && r.index[rAt] == r.index[rAt - r.width]
                            && r.weight[rAt] == r.weight[rAt - r.width]) {
                        java.lang.foreign.MemorySegment.copy(y.data(), (o - outColumns) * y.elementType().byteSize(),
                                y.data(), o * y.elementType().byteSize(), rowBytes);
                        continue;
                    }
                    for (int ox = 0; ox < outColumns; ox++) {
                        int cAt = ox * c.width;
                        float sum = 0f;
                        for (int th = 0; th < r.count[oy]; th++) {
                            float rowWeight = r.weight[rAt + th];
                            long rowStart = inBase + r.index[rAt + th] * inColumns;
                            for (int tw = 0; tw < c.count[ox]; tw++) {
                                sum += rowWeight * c.weight[cAt + tw] * in.get(rowStart + c.index[cAt + tw]);
                            }
                        }
                        out.set(o + ox, sum);
                    }
                }
            }
        }

        /** Any resized axes: each output element sums over every combination of its axes' taps. */
        private void general(FloatAccess in, FloatAccess out, long total) {
            int rank = g.input().length;
            java.util.Arrays.fill(coordinate, 0);
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

        /** An axis that is not resized: each coordinate its own one tap of weight 1. */
        static Taps identity(int length) {
            int[] count = new int[length];
            java.util.Arrays.fill(count, 1);
            float[] weight = new float[length];
            java.util.Arrays.fill(weight, 1f);
            return new Taps(1, count, java.util.stream.LongStream.range(0, length).toArray(), weight, new boolean[length]);
        }
    }
}
