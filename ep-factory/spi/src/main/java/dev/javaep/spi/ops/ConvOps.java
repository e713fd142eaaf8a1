package dev.javaep.spi.ops;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ValueInfo;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Conv and ConvTranspose (1-D, 2-D, 3-D; groups, dilations, strides, pads, auto_pad, output_padding,
 * output_shape), with the attribute and shape rules both backends start each kernel from:
 * {@link ConvAttributes#of} reads and checks a node's attributes once (at GetCapability), and
 * {@link ConvGeometry#of}/{@link ConvGeometry#transposed} resolve them against the input shapes (pads
 * after auto_pad, output shape). Backends: {@code dev.javaep.cpu.kernel.conv}, {@code dev.javaep.cuda.kernel.conv}.
 */
public final class ConvOps {
    private ConvOps() {}

    private static final Set<ElementType> FLOAT_TYPES = Set.of(ElementType.FLOAT16, ElementType.FLOAT, ElementType.DOUBLE);
    private static final Set<ElementType> FLOAT_TYPES_22 = OnnxTypes.FLOATS;

    private static final Map<String, Class<? extends Attribute>> CONV_ATTRIBUTES = Map.of(
            "auto_pad", Attribute.StringValue.class, "dilations", Attribute.IntList.class,
            "group", Attribute.IntValue.class, "kernel_shape", Attribute.IntList.class,
            "pads", Attribute.IntList.class, "strides", Attribute.IntList.class);
    private static final Map<String, Class<? extends Attribute>> CONV_TRANSPOSE_ATTRIBUTES = Map.of(
            "auto_pad", Attribute.StringValue.class, "dilations", Attribute.IntList.class,
            "group", Attribute.IntValue.class, "kernel_shape", Attribute.IntList.class,
            "output_padding", Attribute.IntList.class, "output_shape", Attribute.IntList.class,
            "pads", Attribute.IntList.class, "strides", Attribute.IntList.class);

    private static OpSchema conv(String op, int since, int last, Map<String, Class<? extends Attribute>> attributes,
                                 Set<ElementType> types) {
        return new OpSchema("", op, since, last, 2, List.of("T", "T", "T"), List.of("T"), attributes, Map.of("T", types));
    }

    /** Conv-1: auto_pad SAME means "output size matches the input" (read as ceil(in / stride), as ORT does). */
    public static final OpSchema CONV_1 = conv("Conv", 1, 10, CONV_ATTRIBUTES, FLOAT_TYPES);
    /** Conv-11: SAME is spelled out as {@code output = ceil(input / stride)}; defaults of dilations and strides stated. */
    public static final OpSchema CONV_11 = conv("Conv", 11, 21, CONV_ATTRIBUTES, FLOAT_TYPES);
    /** Conv-22: adds bfloat16. */
    public static final OpSchema CONV_22 = conv("Conv", 22, 22, CONV_ATTRIBUTES, FLOAT_TYPES_22);
    /**
     * ConvTranspose-1. Its text splits an odd total padding the other way round from opset 11 (and contradicts its
     * own auto_pad description); like ONNX Runtime, javaep applies opset 11's rule to every version.
     */
    public static final OpSchema CONV_TRANSPOSE_1 = conv("ConvTranspose", 1, 10, CONV_TRANSPOSE_ATTRIBUTES, FLOAT_TYPES);
    /** ConvTranspose-11: SAME pads towards {@code output = input * stride}; output_padding's meaning spelled out. */
    public static final OpSchema CONV_TRANSPOSE_11 = conv("ConvTranspose", 11, 21, CONV_TRANSPOSE_ATTRIBUTES, FLOAT_TYPES);
    /** ConvTranspose-22: adds bfloat16. */
    public static final OpSchema CONV_TRANSPOSE_22 = conv("ConvTranspose", 22, 22, CONV_TRANSPOSE_ATTRIBUTES, FLOAT_TYPES_22);

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = List.of(CONV_1, CONV_11, CONV_22,
            CONV_TRANSPOSE_1, CONV_TRANSPOSE_11, CONV_TRANSPOSE_22);

    /** The {@code auto_pad} attribute of the convolution and pooling ops. */
    public enum AutoPad {
        /** Explicit {@code pads} (default zeros). */
        NOTSET,
        /** Pad to {@code ceil(in / stride)} outputs (ConvTranspose: {@code in * stride}); an odd total puts the extra at the end. */
        SAME_UPPER,
        /** As SAME_UPPER with the extra at the beginning. */
        SAME_LOWER,
        /** No padding. */
        VALID;

        /** The node's {@code auto_pad} (NOTSET when absent or empty, as ONNX Runtime reads it). */
        public static AutoPad of(Node node) {
            String value = node.stringAttribute("auto_pad", "NOTSET");
            return switch (value) {
                case "", "NOTSET" -> NOTSET;
                case "SAME_UPPER" -> SAME_UPPER;
                case "SAME_LOWER" -> SAME_LOWER;
                case "VALID" -> VALID;
                default -> throw new IllegalArgumentException(node.opType() + ": auto_pad '" + value
                        + "' is none of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
            };
        }

        /**
         * Splits a total padding between the two ends: SAME_UPPER puts an odd one's extra at the end, everything else
         * (SAME_LOWER, and ConvTranspose's pads derived from output_shape) at the beginning. Returns {begin, end}.
         */
        long[] split(long total) {
            return this == SAME_UPPER ? new long[] {total / 2, total - total / 2} : new long[] {total - total / 2, total / 2};
        }

        /**
         * Sets the pads of spatial axis {@code axis} in {@code begin} and {@code end} (one entry per axis): the node's
         * {@code pads} ({@code [begin..., end...]}) under NOTSET, none under VALID, {@code sameTotal} split under
         * SAME_UPPER/SAME_LOWER.
         */
        void placePads(int axis, long[] pads, long sameTotal, long[] begin, long[] end) {
            switch (this) {
                case NOTSET -> {
                    begin[axis] = pads[axis];
                    end[axis] = pads[axis + begin.length];
                }
                case VALID -> { }
                case SAME_UPPER, SAME_LOWER -> {
                    long[] split = split(sameTotal);
                    begin[axis] = split[0];
                    end[axis] = split[1];
                }
            }
        }

        boolean isSame() {
            return this == SAME_UPPER || this == SAME_LOWER;
        }

        /**
         * The total padding SAME asks of a window over {@code extent} positions (Conv and the pools): enough for
         * {@code ceil(in / stride)} outputs.
         */
        static long sameTotal(long in, long stride, long extent) {
            return Math.max(0, (Math.ceilDiv(in, stride) - 1) * stride + extent - in);
        }
    }

    /**
     * The attributes of one Conv or ConvTranspose node, read and checked once. Absent lists are empty here and take
     * their defaults (ones, zeros, W's spatial shape) in {@link ConvGeometry}, where the rank is known.
     *
     * @param outputShape ConvTranspose's {@code output_shape}: the spatial sizes (a leading N and C, which ONNX Runtime
     *                    accepts, are dropped by {@link ConvGeometry#transposed})
     */
    public record ConvAttributes(String op, AutoPad autoPad, long group, long[] kernelShape, long[] strides,
                                 long[] dilations, long[] pads, long[] outputPadding, long[] outputShape) {

        /**
         * Reads the node's attributes. Throws {@link IllegalArgumentException} naming the attribute for a value ONNX
         * does not allow (unknown auto_pad, group &lt; 1, a stride or dilation &lt; 1, a negative pad, lists whose
         * lengths disagree with each other or with the rank of X or W where ORT knows it).
         */
        public static ConvAttributes of(Node node) {
            String op = node.opType();
            boolean transposed = op.equals("ConvTranspose");
            ConvAttributes a = new ConvAttributes(op, AutoPad.of(node), node.intAttribute("group", 1),
                    ints(node, "kernel_shape"), ints(node, "strides"), ints(node, "dilations"), ints(node, "pads"),
                    transposed ? ints(node, "output_padding") : new long[0],
                    transposed ? ints(node, "output_shape") : new long[0]);
            if (a.group < 1) {
                throw new IllegalArgumentException(op + ": group is " + a.group + ", it must be at least 1");
            }
            requireAtLeast(op, "kernel_shape", a.kernelShape, 1);
            requireAtLeast(op, "strides", a.strides, 1);
            requireAtLeast(op, "dilations", a.dilations, 1);
            requireAtLeast(op, "pads", a.pads, 0);
            requireAtLeast(op, "output_padding", a.outputPadding, 0);
            requireAtLeast(op, "output_shape", a.outputShape, 0);
            int rank = a.spatialRank(rankOf(node.input(0)), rankOf(node.input(1)));
            if (rank == 0) {
                throw new IllegalArgumentException(op + ": X and W need at least one spatial dimension (rank 3 or more)");
            }
            return a;
        }

        /**
         * The number of spatial dimensions the attributes describe, checked against each other and against the ranks
         * of X and W where known ({@code -1} when not); {@code -1} when nothing says.
         */
        int spatialRank(int xRank, int wRank) {
            if (pads.length % 2 != 0) {
                throw new IllegalArgumentException(op + ": pads " + Arrays.toString(pads)
                        + " has an odd length; it lists a begin and an end per spatial axis");
            }
            if (xRank >= 0 && xRank < 3) {
                throw new IllegalArgumentException(op + ": X has rank " + xRank
                        + "; it needs a batch, a channel and at least one spatial axis");
            }
            // each source that knows the number of spatial axes, and what it says
            List<String> sources = new java.util.ArrayList<>();
            List<Integer> ranks = new java.util.ArrayList<>();
            add(sources, ranks, "kernel_shape", kernelShape, kernelShape.length);
            add(sources, ranks, "strides", strides, strides.length);
            add(sources, ranks, "dilations", dilations, dilations.length);
            add(sources, ranks, "pads", pads, pads.length / 2);
            add(sources, ranks, "output_padding", outputPadding, outputPadding.length);
            if (xRank >= 0) {
                sources.add("X's rank " + xRank);
                ranks.add(xRank - 2);
                if (outputShape.length != 0 && outputShape.length != xRank - 2 && outputShape.length != xRank) {
                    throw new IllegalArgumentException(op + ": output_shape " + Arrays.toString(outputShape) + " has "
                            + outputShape.length + " values for " + (xRank - 2) + " spatial axes");
                }
            }
            if (wRank >= 0) {
                sources.add("W's rank " + wRank);
                ranks.add(wRank - 2);
            }
            for (int i = 1; i < ranks.size(); i++) {
                if (!ranks.get(i).equals(ranks.get(0))) {
                    throw new IllegalArgumentException(op + ": " + sources.get(i) + " gives " + ranks.get(i)
                            + " spatial axes but " + sources.get(0) + " gives " + ranks.get(0));
                }
            }
            return ranks.isEmpty() ? -1 : ranks.get(0);
        }

        private static void add(List<String> sources, List<Integer> ranks, String name, long[] values, int rank) {
            if (values.length != 0) {
                sources.add(name + " " + Arrays.toString(values));
                ranks.add(rank);
            }
        }

        private static void requireAtLeast(String op, String name, long[] values, long min) {
            for (long v : values) {
                if (v < min) {
                    throw new IllegalArgumentException(op + ": " + name + " " + Arrays.toString(values) + " has " + v
                            + "; every value must be at least " + min);
                }
            }
        }
    }

    /**
     * One Conv or ConvTranspose resolved against its input shapes: every per-axis list has one value per spatial
     * axis. For ConvTranspose, {@code padsBegin}/{@code padsEnd} are the amounts cropped from the full transposed
     * output (ONNX's pads), and an {@code output_shape} larger than that output leaves bias-only positions at the end.
     *
     * @param inChannels  C (X's channels)
     * @param outChannels M (Y's channels)
     */
    public record ConvGeometry(long batch, long inChannels, long outChannels, long group, long[] inputSpatial,
                               long[] kernel, long[] strides, long[] dilations, long[] padsBegin, long[] padsEnd,
                               long[] outputSpatial) {

        public int spatialRank() {
            return inputSpatial.length;
        }

        /** Y's shape: {@code [N, M, spatial...]}. */
        public long[] outputShape() {
            return batchChannelsSpatial(batch, outChannels, outputSpatial);
        }

        /** C / group: the input channels one output channel reads. */
        public long inChannelsPerGroup() {
            return inChannels / group;
        }

        /** M / group. */
        public long outChannelsPerGroup() {
            return outChannels / group;
        }

        /** The product of the kernel's spatial sizes. */
        public long kernelSize() {
            return Tensor.elementCount(kernel);
        }

        public long inputSpatialSize() {
            return Tensor.elementCount(inputSpatial);
        }

        public long outputSpatialSize() {
            return Tensor.elementCount(outputSpatial);
        }

        /** The extent of axis {@code i}'s dilated kernel: {@code (k - 1) * d + 1}. */
        public long dilatedKernel(int i) {
            return (kernel[i] - 1) * dilations[i] + 1;
        }

        /**
         * Conv: X {@code [N, C, D1..Dr]}, W {@code [M, C/group, k1..kr]}, optional B {@code [M]} ({@code null} when
         * omitted). Output size per axis: {@code floor((in + pads - ((k - 1) * d + 1)) / stride) + 1}; SAME pads to
         * {@code ceil(in / stride)}.
         */
        public static ConvGeometry of(ConvAttributes a, long[] x, long[] w, long[] b) {
            Common c = Common.of(a, x, w);
            long m = w[0];
            if (x[1] != w[1] * a.group()) {
                throw new IllegalArgumentException(a.op() + ": X has " + x[1] + " channels but W " + Arrays.toString(w)
                        + " with group " + a.group() + " reads " + (w[1] * a.group()));
            }
            if (m % a.group() != 0) {
                throw new IllegalArgumentException(a.op() + ": W has " + m + " output channels, not a multiple of group "
                        + a.group());
            }
            requireBias(a.op(), b, m);
            int r = c.rank;
            long[] begin = new long[r];
            long[] end = new long[r];
            long[] out = new long[r];
            for (int i = 0; i < r; i++) {
                long in = x[i + 2];
                long extent = (c.kernel[i] - 1) * c.dilations[i] + 1;
                a.autoPad().placePads(i, c.pads, AutoPad.sameTotal(in, c.strides[i], extent), begin, end);
                long span = in + begin[i] + end[i] - extent;
                if (span < 0) {
                    throw new IllegalArgumentException(a.op() + ": along spatial axis " + i + " the kernel covers " + extent
                            + " positions (kernel " + c.kernel[i] + ", dilation " + c.dilations[i] + ") but the padded input has "
                            + (in + begin[i] + end[i]) + " (X " + Arrays.toString(x) + ")");
                }
                out[i] = span / c.strides[i] + 1;
            }
            return new ConvGeometry(x[0], x[1], m, a.group(), Arrays.copyOfRange(x, 2, x.length), c.kernel, c.strides,
                    c.dilations, begin, end, out);
        }

        /**
         * ConvTranspose: X {@code [N, C, D1..Dr]}, W {@code [C, M/group, k1..kr]}, optional B {@code [M]}. The full
         * output along an axis has {@code (in - 1) * stride + output_padding + (k - 1) * d + 1} positions; pads crop it.
         * With output_shape, the pads are derived from it (the total split as {@link AutoPad#split}: the extra at the
         * beginning unless SAME_UPPER); with SAME_UPPER/SAME_LOWER alone, towards {@code in * stride}. These are ONNX
         * Runtime's rules (ONNX opset 11's text for SAME and output_shape).
         */
        public static ConvGeometry transposed(ConvAttributes a, long[] x, long[] w, long[] b) {
            Common c = Common.of(a, x, w);
            if (w[0] != x[1]) {
                throw new IllegalArgumentException(a.op() + ": W " + Arrays.toString(w) + " is for " + w[0]
                        + " input channels but X has " + x[1]);
            }
            if (x[1] % a.group() != 0) {
                throw new IllegalArgumentException(a.op() + ": X has " + x[1] + " channels, not a multiple of group " + a.group());
            }
            long m = w[1] * a.group();
            requireBias(a.op(), b, m);
            int r = c.rank;
            long[] outputPadding = a.outputPadding().length == 0 ? new long[r] : a.outputPadding();
            long[] requested = a.outputShape().length == 0 ? null
                    : Arrays.copyOfRange(a.outputShape(), a.outputShape().length - r, a.outputShape().length);
            long[] begin = new long[r];
            long[] end = new long[r];
            long[] out = new long[r];
            for (int i = 0; i < r; i++) {
                long in = x[i + 2];
                long full = (in - 1) * c.strides[i] + outputPadding[i] + (c.kernel[i] - 1) * c.dilations[i] + 1;
                if (requested != null) {
                    long[] split = a.autoPad().split(Math.max(0, full - requested[i]));
                    begin[i] = split[0];
                    end[i] = split[1];
                    out[i] = requested[i];
                    continue;
                }
                a.autoPad().placePads(i, c.pads, Math.max(0, full - in * c.strides[i]), begin, end);
                out[i] = full - begin[i] - end[i];
                if (out[i] < 1) {
                    throw new IllegalArgumentException(a.op() + ": along spatial axis " + i + " the pads " + begin[i] + "+"
                            + end[i] + " crop all " + full + " positions of the transposed output (X " + Arrays.toString(x) + ")");
                }
            }
            return new ConvGeometry(x[0], x[1], m, a.group(), Arrays.copyOfRange(x, 2, x.length), c.kernel, c.strides,
                    c.dilations, begin, end, out);
        }

        private static void requireBias(String op, long[] b, long m) {
            if (b != null && (b.length != 1 || b[0] != m)) {
                throw new IllegalArgumentException(op + ": B has shape " + Arrays.toString(b) + ", expected [" + m + "]");
            }
        }
    }

    /** The per-axis lists with their defaults filled in, after the checks Conv and ConvTranspose share. */
    private record Common(int rank, long[] kernel, long[] strides, long[] dilations, long[] pads) {
        static Common of(ConvAttributes a, long[] x, long[] w) {
            if (x == null || w == null) {
                throw new IllegalArgumentException(a.op() + ": X and W are required");
            }
            if (x.length < 3 || w.length != x.length) {
                throw new IllegalArgumentException(a.op() + ": X " + Arrays.toString(x) + " and W " + Arrays.toString(w)
                        + " must have the same rank, 3 or more");
            }
            for (long d : x) {
                if (d < 0) {
                    throw new IllegalArgumentException(a.op() + ": X has a negative dimension " + Arrays.toString(x));
                }
            }
            int rank = a.spatialRank(x.length, w.length);
            long[] kernel = Arrays.copyOfRange(w, 2, w.length);
            for (long k : kernel) {
                if (k < 1) {
                    throw new IllegalArgumentException(a.op() + ": W " + Arrays.toString(w) + " has an empty kernel");
                }
            }
            if (a.kernelShape().length != 0 && !Arrays.equals(a.kernelShape(), kernel)) {
                throw new IllegalArgumentException(a.op() + ": kernel_shape " + Arrays.toString(a.kernelShape())
                        + " differs from W's spatial shape " + Arrays.toString(kernel));
            }
            return new Common(rank, kernel, orFill(a.strides(), rank, 1), orFill(a.dilations(), rank, 1),
                    orFill(a.pads(), 2 * rank, 0));
        }
    }

    /** The shape {@code [n, c, spatial...]} of a convolution's or pool's tensors. */
    static long[] batchChannelsSpatial(long n, long c, long[] spatial) {
        long[] shape = new long[spatial.length + 2];
        shape[0] = n;
        shape[1] = c;
        System.arraycopy(spatial, 0, shape, 2, spatial.length);
        return shape;
    }

    static long[] orFill(long[] values, int length, long fill) {
        if (values.length != 0) {
            return values;
        }
        long[] filled = new long[length];
        Arrays.fill(filled, fill);
        return filled;
    }

    static long[] ints(Node node, String name) {
        List<Long> values = node.intsAttribute(name, List.of());
        long[] out = new long[values.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = values.get(i);
        }
        return out;
    }

    static int rankOf(ValueInfo value) {
        return value == null ? -1 : value.rank();
    }
}
