package dev.javaep.spi.ops;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ConvOps.AutoPad;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * MaxPool, AveragePool (pads, ceil_mode, count_include_pad, dilations), GlobalAveragePool, GlobalMaxPool, with
 * the window rules both backends share: {@link PoolAttributes#of} reads a node once, {@link PoolGeometry#of}
 * resolves it against X's shape. Backends: {@code dev.javaep.cpu.kernel.conv}, {@code dev.javaep.cuda.kernel.conv}.
 *
 * <p>MaxPool's optional second output (Indices, opset 8 on: int64, each maximum's position in X flattened, in
 * the order storage_order names) is described by {@link MaxPoolIndices}.
 */
public final class PoolOps {
    private PoolOps() {}

    private static final Set<ElementType> FLOAT_TYPES = Set.of(ElementType.FLOAT16, ElementType.FLOAT, ElementType.DOUBLE);
    private static final Set<ElementType> MAXPOOL_TYPES_12 = OnnxTypes.union(FLOAT_TYPES,
            Set.of(ElementType.INT8, ElementType.UINT8));
    private static final Set<ElementType> MAXPOOL_TYPES_22 = OnnxTypes.union(MAXPOOL_TYPES_12, Set.of(ElementType.BFLOAT16));

    /** auto_pad, kernel_shape, pads, strides: what every windowed pool has had since opset 1. */
    private static Map<String, Class<? extends Attribute>> attributes(String... more) {
        Map<String, Class<? extends Attribute>> a = new HashMap<>(Map.of("auto_pad", Attribute.StringValue.class,
                "kernel_shape", Attribute.IntList.class, "pads", Attribute.IntList.class, "strides", Attribute.IntList.class));
        for (String name : more) {
            a.put(name, name.equals("dilations") ? Attribute.IntList.class : Attribute.IntValue.class);
        }
        return a;
    }

    private static OpSchema pool(String op, int since, int last, Map<String, Class<? extends Attribute>> attributes,
                                 Set<ElementType> types) {
        return new OpSchema("", op, since, last, 1, List.of("T"), List.of("T"), attributes, Map.of("T", types));
    }

    /** MaxPool from version 8: Y and the optional int64 Indices. */
    private static OpSchema maxPoolWithIndices(int since, int last, Map<String, Class<? extends Attribute>> attributes,
                                               Set<ElementType> types) {
        return new OpSchema("", "MaxPool", since, last, 1, List.of("T"), List.of("T", "I"), attributes,
                Map.of("T", types, "I", Set.of(ElementType.INT64)), 1);
    }

    public static final OpSchema MAX_POOL_1 = pool("MaxPool", 1, 7, attributes(), FLOAT_TYPES);
    /** MaxPool-8: the optional Indices output, and storage_order (the order of its indices). */
    public static final OpSchema MAX_POOL_8 = maxPoolWithIndices(8, 9, attributes("storage_order"), FLOAT_TYPES);
    /** MaxPool-10: ceil_mode and dilations. */
    public static final OpSchema MAX_POOL_10 = maxPoolWithIndices(10, 11,
            attributes("storage_order", "ceil_mode", "dilations"), FLOAT_TYPES);
    /** MaxPool-12: int8 and uint8. (MaxPool-11 only rewords SAME; it shares this meaning with 10.) */
    public static final OpSchema MAX_POOL_12 = maxPoolWithIndices(12, 21,
            attributes("storage_order", "ceil_mode", "dilations"), MAXPOOL_TYPES_12);
    /** MaxPool-22: bfloat16. */
    public static final OpSchema MAX_POOL_22 = maxPoolWithIndices(22, 22,
            attributes("storage_order", "ceil_mode", "dilations"), MAXPOOL_TYPES_22);

    public static final OpSchema AVERAGE_POOL_1 = pool("AveragePool", 1, 6, attributes(), FLOAT_TYPES);
    /** AveragePool-7: count_include_pad. */
    public static final OpSchema AVERAGE_POOL_7 = pool("AveragePool", 7, 9, attributes("count_include_pad"), FLOAT_TYPES);
    /** AveragePool-10: ceil_mode (11 only rewords SAME). */
    public static final OpSchema AVERAGE_POOL_10 = pool("AveragePool", 10, 18,
            attributes("count_include_pad", "ceil_mode"), FLOAT_TYPES);
    /** AveragePool-19: dilations. */
    public static final OpSchema AVERAGE_POOL_19 = pool("AveragePool", 19, 21,
            attributes("count_include_pad", "ceil_mode", "dilations"), FLOAT_TYPES);
    /** AveragePool-22: bfloat16. */
    public static final OpSchema AVERAGE_POOL_22 = pool("AveragePool", 22, 22,
            attributes("count_include_pad", "ceil_mode", "dilations"), OnnxTypes.FLOATS);

    public static final OpSchema GLOBAL_AVERAGE_POOL_1 = pool("GlobalAveragePool", 1, 21, Map.of(), FLOAT_TYPES);
    public static final OpSchema GLOBAL_AVERAGE_POOL_22 = pool("GlobalAveragePool", 22, 22, Map.of(), OnnxTypes.FLOATS);
    public static final OpSchema GLOBAL_MAX_POOL_1 = pool("GlobalMaxPool", 1, 21, Map.of(), FLOAT_TYPES);
    public static final OpSchema GLOBAL_MAX_POOL_22 = pool("GlobalMaxPool", 22, 22, Map.of(), OnnxTypes.FLOATS);

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = List.of(MAX_POOL_1, MAX_POOL_8, MAX_POOL_10, MAX_POOL_12, MAX_POOL_22,
            AVERAGE_POOL_1, AVERAGE_POOL_7, AVERAGE_POOL_10, AVERAGE_POOL_19, AVERAGE_POOL_22,
            GLOBAL_AVERAGE_POOL_1, GLOBAL_AVERAGE_POOL_22, GLOBAL_MAX_POOL_1, GLOBAL_MAX_POOL_22);

    /**
     * MaxPool's Indices output: for each output, the position in X (flattened, batch and channel included) of the
     * first tap holding the window's maximum. Within an (n, c) plane of spatial shape {@code [D1, ..., Dr]} the position
     * {@code (i1, ..., ir)} counts row-major ({@code storage_order=0}: {@code (i1 * D2 + i2) * D3 + ...}) or column-major
     * ({@code storage_order=1}: {@code i1 + D1 * (i2 + D2 * (i3 + ...))}); the plane adds {@code plane * D1 * ... * Dr}.
     * As in ONNX Runtime, a tap wins only when it is larger than every earlier one (the first of equal maxima wins,
     * NaN never does).
     */
    public record MaxPoolIndices(boolean columnMajor) {
        /** The node's Indices rule, or null when the node does not ask for Indices; throws for a storage_order other than 0 and 1. */
        public static MaxPoolIndices of(Node node) {
            if (node.outputs().size() < 2 || node.outputs().get(1) == null) {
                return null;
            }
            long order = node.intAttribute("storage_order", 0);
            if (order != 0 && order != 1) {
                throw new IllegalArgumentException("MaxPool: storage_order is " + order + "; it is 0 (row major) or 1"
                        + " (column major)");
            }
            return new MaxPoolIndices(order == 1);
        }

        /** The index of position {@code (d, h, w)} of plane {@code plane}, X's spatial axes seen as 3 (leading ones of size 1). */
        public long index(long plane, int inD, int inH, int inW, int d, int h, int w) {
            long within = columnMajor ? d + (long) inD * (h + (long) inH * w) : ((long) d * inH + h) * inW + w;
            return plane * inD * inH * inW + within;
        }
    }

    /**
     * The window attributes of one MaxPool or AveragePool node, read and checked once. Absent strides, dilations
     * and pads are empty here and take their defaults in {@link PoolGeometry#of}.
     */
    public record PoolAttributes(String op, AutoPad autoPad, long[] kernelShape, long[] strides, long[] dilations,
                                 long[] pads, boolean ceilMode, boolean countIncludePad) {

        /**
         * Reads the node's attributes; {@link IllegalArgumentException} for a missing kernel_shape, a kernel, stride
         * or dilation below 1, a negative pad, lengths that disagree with kernel_shape or X's rank, or an unknown
         * auto_pad.
         */
        public static PoolAttributes of(Node node) {
            String op = node.opType();
            long[] kernel = ConvOps.ints(node, "kernel_shape");
            if (kernel.length == 0) {
                throw new IllegalArgumentException(op + ": kernel_shape is required");
            }
            PoolAttributes a = new PoolAttributes(op, AutoPad.of(node), kernel, ConvOps.ints(node, "strides"),
                    ConvOps.ints(node, "dilations"), ConvOps.ints(node, "pads"), node.intAttribute("ceil_mode", 0) != 0,
                    node.intAttribute("count_include_pad", 0) != 0);
            a.check(ConvOps.rankOf(node.input(0)));
            return a;
        }

        void check(int xRank) {
            int r = kernelShape.length;
            requireAtLeast("kernel_shape", kernelShape, 1);
            requireAtLeast("strides", strides, 1);
            requireAtLeast("dilations", dilations, 1);
            requireAtLeast("pads", pads, 0);
            requireLength("strides", strides, r);
            requireLength("dilations", dilations, r);
            requireLength("pads", pads, 2 * r);
            if (xRank >= 0 && xRank != r + 2) {
                throw new IllegalArgumentException(op + ": kernel_shape " + Arrays.toString(kernelShape) + " has " + r
                        + " spatial axes but X has rank " + xRank);
            }
        }

        private void requireLength(String name, long[] values, int length) {
            if (values.length != 0 && values.length != length) {
                throw new IllegalArgumentException(op + ": " + name + " " + Arrays.toString(values) + " has " + values.length
                        + " values, kernel_shape " + Arrays.toString(kernelShape) + " needs " + length);
            }
        }

        private void requireAtLeast(String name, long[] values, long min) {
            for (long v : values) {
                if (v < min) {
                    throw new IllegalArgumentException(op + ": " + name + " " + Arrays.toString(values) + " has " + v
                            + "; every value must be at least " + min);
                }
            }
        }
    }

    /**
     * One pool resolved against X {@code [N, C, D1..Dr]}: per spatial axis the window, stride, dilation, the pads
     * and the output size. Window {@code o} along an axis reads positions {@code o * stride - padsBegin + j * dilation}
     * for {@code j < kernel}; those outside {@code [0, in)} are padding.
     */
    public record PoolGeometry(long batch, long channels, long[] inputSpatial, long[] kernel, long[] strides,
                               long[] dilations, long[] padsBegin, long[] padsEnd, long[] outputSpatial) {

        public int spatialRank() {
            return inputSpatial.length;
        }

        /** Y's shape: {@code [N, C, spatial...]}. */
        public long[] outputShape() {
            return ConvOps.batchChannelsSpatial(batch, channels, outputSpatial);
        }

        /**
         * MaxPool/AveragePool. Explicit pads: {@code floor((in + pads - ((k - 1) * d + 1)) / stride) + 1}, or the
         * ceiling with ceil_mode, less one when the last window would start inside the end padding (PyTorch's rule,
         * which ONNX and ONNX Runtime follow). SAME_UPPER/SAME_LOWER: {@code ceil(in / stride)} outputs, padded by
         * {@code (out - 1) * stride + (k - 1) * d + 1 - in} split as Conv splits it. VALID: no pads.
         */
        public static PoolGeometry of(PoolAttributes a, long[] x) {
            int r = a.kernelShape().length;
            if (x == null || x.length != r + 2) {
                throw new IllegalArgumentException(a.op() + ": X " + Arrays.toString(x) + " needs rank " + (r + 2)
                        + " for kernel_shape " + Arrays.toString(a.kernelShape()));
            }
            for (long d : x) {
                if (d < 0) {
                    throw new IllegalArgumentException(a.op() + ": X has a negative dimension " + Arrays.toString(x));
                }
            }
            long[] strides = ConvOps.orFill(a.strides(), r, 1);
            long[] dilations = ConvOps.orFill(a.dilations(), r, 1);
            long[] pads = ConvOps.orFill(a.pads(), 2 * r, 0);
            long[] begin = new long[r];
            long[] end = new long[r];
            long[] out = new long[r];
            for (int i = 0; i < r; i++) {
                long in = x[i + 2];
                long extent = (a.kernelShape()[i] - 1) * dilations[i] + 1;
                a.autoPad().placePads(i, pads, AutoPad.sameTotal(in, strides[i], extent), begin, end);
                if (a.autoPad().isSame()) {
                    out[i] = Math.ceilDiv(in, strides[i]);
                    continue;
                }
                long span = in + begin[i] + end[i] - extent;
                if (span < 0) {
                    throw new IllegalArgumentException(a.op() + ": along spatial axis " + i + " the window covers " + extent
                            + " positions (kernel " + a.kernelShape()[i] + ", dilation " + dilations[i]
                            + ") but the padded input has " + (in + begin[i] + end[i]) + " (X " + Arrays.toString(x) + ")");
                }
                if (a.ceilMode()) {
                    out[i] = Math.ceilDiv(span, strides[i]) + 1;
                    if ((out[i] - 1) * strides[i] >= in + begin[i]) {
                        out[i]--;
                    }
                } else {
                    out[i] = span / strides[i] + 1;
                }
            }
            return new PoolGeometry(x[0], x[1], Arrays.copyOfRange(x, 2, x.length), a.kernelShape(), strides, dilations,
                    begin, end, out);
        }

        /** GlobalAveragePool/GlobalMaxPool: one window over all of X's spatial axes; Y is {@code [N, C, 1, ...]}. */
        public static PoolGeometry global(String op, long[] x) {
            if (x == null || x.length < 2) {
                throw new IllegalArgumentException(op + ": X " + Arrays.toString(x) + " needs at least a batch and a channel axis");
            }
            int r = x.length - 2;
            long[] spatial = Arrays.copyOfRange(x, 2, x.length);
            long[] ones = ConvOps.orFill(new long[0], r, 1);
            return new PoolGeometry(x[0], x[1], spatial, spatial, ones, ones, new long[r], new long[r], ones.clone());
        }

        public long inputSpatialSize() {
            return Tensor.elementCount(inputSpatial);
        }

        public long outputSpatialSize() {
            return Tensor.elementCount(outputSpatial);
        }
    }
}
