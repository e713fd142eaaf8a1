package dev.javaep.spi.ops;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.TensorValue;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Shape and data-movement ops: Identity, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split,
 * Slice, Pad, Expand, Tile, Gather, GatherElements, ScatterND, Shape, Size, Constant, ConstantOfShape, Range,
 * DepthToSpace, SpaceToDepth. Backends: {@code dev.javaep.cpu.kernel.tensor} and
 * {@code dev.javaep.cuda.kernel.tensor}.
 *
 * <p>Beside the schemas are the rules both backends share, so each kernel starts with one call: output
 * shapes (Reshape's 0 and -1, Squeeze's axes, Slice's clamping, Pad's pads and axes, Split's sizes, ...) and,
 * for the ops that only move elements, the move itself as a {@link StridedCopy}: one index space walked over
 * a strided view of the input and one of the output. Transpose, Slice (any step), Expand, Tile,
 * DepthToSpace, SpaceToDepth, and each part of Concat and Split are such a copy; a backend that runs strided
 * copies runs them all.
 */
public final class TensorOps {
    private TensorOps() {}

    private static final Set<ElementType> I64 = Set.of(ElementType.INT64);
    private static final Set<ElementType> RANGE_TYPES = Set.of(ElementType.FLOAT, ElementType.DOUBLE, ElementType.INT16,
            ElementType.INT32, ElementType.INT64);

    private static Map<String, Set<ElementType>> types(Object... pairs) {
        Map<String, Set<ElementType>> map = new java.util.HashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            @SuppressWarnings("unchecked")
            Set<ElementType> set = (Set<ElementType>) pairs[i + 1];
            map.put((String) pairs[i], set);
        }
        return map;
    }

    private static OpSchema schema(String op, int since, int last, int minInputs, List<String> inputs, List<String> outputs,
                                   Map<String, Class<? extends Attribute>> attributes, Map<String, Set<ElementType>> types) {
        return new OpSchema("", op, since, last, minInputs, inputs, outputs, attributes, types);
    }

    public static final OpSchema IDENTITY = new OpSchema("", "Identity", 1, 25, 1, List.of("V"), List.of("V"), Map.of(),
            Map.of("V", OnnxTypes.ANY));

    /** Reshape 1..4: the shape is an attribute. */
    public static final OpSchema RESHAPE_1 = schema("Reshape", 1, 4, 1, List.of("T"), List.of("T"),
            Map.of("shape", Attribute.IntList.class, "consumed_inputs", Attribute.IntList.class), types("T", OnnxTypes.FLOATS));
    /** Reshape 5..13: the shape is input 1 (0 copies the input's dimension, -1 is inferred). */
    public static final OpSchema RESHAPE_5 = schema("Reshape", 5, 13, 2, List.of("T", "shape"), List.of("T"), Map.of(),
            types("T", OnnxTypes.ANY, "shape", I64));
    /** Reshape 14..25: {@code allowzero} (a 0 is then a zero-sized dimension). */
    public static final OpSchema RESHAPE_14 = schema("Reshape", 14, 25, 2, List.of("T", "shape"), List.of("T"),
            Map.of("allowzero", Attribute.IntValue.class), types("T", OnnxTypes.ANY, "shape", I64));

    public static final OpSchema FLATTEN_1 = schema("Flatten", 1, 8, 1, List.of("T"), List.of("T"),
            Map.of("axis", Attribute.IntValue.class), types("T", OnnxTypes.FLOATS));
    /** Flatten 9..25: every type (11 allows a negative axis). */
    public static final OpSchema FLATTEN_9 = schema("Flatten", 9, 25, 1, List.of("T"), List.of("T"),
            Map.of("axis", Attribute.IntValue.class), types("T", OnnxTypes.ANY));

    /** Squeeze 1..12: the axes are an attribute (absent: every dimension of size 1). */
    public static final OpSchema SQUEEZE_1 = schema("Squeeze", 1, 12, 1, List.of("T"), List.of("T"),
            Map.of("axes", Attribute.IntList.class), types("T", OnnxTypes.ANY));
    /** Squeeze 13..25: the axes are optional input 1. */
    public static final OpSchema SQUEEZE_13 = schema("Squeeze", 13, 25, 1, List.of("T", "axes"), List.of("T"), Map.of(),
            types("T", OnnxTypes.ANY, "axes", I64));
    /** Unsqueeze 1..12: the axes are a required attribute. */
    public static final OpSchema UNSQUEEZE_1 = schema("Unsqueeze", 1, 12, 1, List.of("T"), List.of("T"),
            Map.of("axes", Attribute.IntList.class), types("T", OnnxTypes.ANY));
    /** Unsqueeze 13..25: the axes are input 1. */
    public static final OpSchema UNSQUEEZE_13 = schema("Unsqueeze", 13, 25, 2, List.of("T", "axes"), List.of("T"), Map.of(),
            types("T", OnnxTypes.ANY, "axes", I64));

    public static final OpSchema TRANSPOSE = schema("Transpose", 1, 25, 1, List.of("T"), List.of("T"),
            Map.of("perm", Attribute.IntList.class), types("T", OnnxTypes.ANY));

    /** Concat 1..3: {@code axis} defaults to 1. */
    public static final OpSchema CONCAT_1 = new OpSchema("", "Concat", 1, 3, 1, List.of("T"), List.of("concat_result"),
            Map.of("axis", Attribute.IntValue.class), types("T", OnnxTypes.ANY, "concat_result", OnnxTypes.ANY), true, false);
    /** Concat 4..25: {@code axis} is required. */
    public static final OpSchema CONCAT_4 = new OpSchema("", "Concat", 4, 25, 1, List.of("T"), List.of("T"),
            Map.of("axis", Attribute.IntValue.class), types("T", OnnxTypes.ANY), true, false);

    /** Split 1: the sizes are the {@code split} attribute or the optional second input. */
    public static final OpSchema SPLIT_1 = new OpSchema("", "Split", 1, 1, 1, List.of("T", "T"), List.of("T"),
            Map.of("axis", Attribute.IntValue.class, "split", Attribute.IntList.class), types("T", OnnxTypes.FLOATS), false, true);
    /** Split 2..12: the sizes are the {@code split} attribute, else equal parts. */
    public static final OpSchema SPLIT_2 = new OpSchema("", "Split", 2, 12, 1, List.of("T"), List.of("T"),
            Map.of("axis", Attribute.IntValue.class, "split", Attribute.IntList.class), types("T", OnnxTypes.ANY), false, true);
    /** Split 13..17: the sizes are optional input 1, else equal parts. */
    public static final OpSchema SPLIT_13 = new OpSchema("", "Split", 13, 17, 1, List.of("T", "split"), List.of("T"),
            Map.of("axis", Attribute.IntValue.class), types("T", OnnxTypes.ANY, "split", I64), false, true);
    /** Split 18..25: {@code num_outputs} parts of ceil(dim / num_outputs), the last one smaller. */
    public static final OpSchema SPLIT_18 = new OpSchema("", "Split", 18, 25, 1, List.of("T", "split"), List.of("T"),
            Map.of("axis", Attribute.IntValue.class, "num_outputs", Attribute.IntValue.class),
            types("T", OnnxTypes.ANY, "split", I64), false, true);

    /** Slice 1..9: starts, ends and axes are attributes, the step is 1. */
    public static final OpSchema SLICE_1 = schema("Slice", 1, 9, 1, List.of("T"), List.of("T"),
            Map.of("starts", Attribute.IntList.class, "ends", Attribute.IntList.class, "axes", Attribute.IntList.class),
            types("T", OnnxTypes.ANY));
    /** Slice 10..25: starts, ends, axes and steps are inputs (negative steps, negative axes from 11). */
    public static final OpSchema SLICE_10 = schema("Slice", 10, 25, 3, List.of("T", "Tind", "Tind", "Tind", "Tind"),
            List.of("T"), Map.of(), types("T", OnnxTypes.ANY, "Tind", OnnxTypes.INDICES));

    /** Pad 1: {@code paddings}, {@code mode}, {@code value} attributes. */
    public static final OpSchema PAD_1 = schema("Pad", 1, 1, 1, List.of("T"), List.of("T"),
            Map.of("paddings", Attribute.IntList.class, "mode", Attribute.StringValue.class, "value", Attribute.FloatValue.class),
            types("T", OnnxTypes.FLOATS));
    /** Pad 2..10: {@code pads}, {@code mode}, {@code value} attributes. */
    public static final OpSchema PAD_2 = schema("Pad", 2, 10, 1, List.of("T"), List.of("T"),
            Map.of("pads", Attribute.IntList.class, "mode", Attribute.StringValue.class, "value", Attribute.FloatValue.class),
            types("T", OnnxTypes.FLOATS));
    /** Pad 11..17: pads and the constant value are inputs. */
    public static final OpSchema PAD_11 = schema("Pad", 11, 17, 2, List.of("T", "pads", "T"), List.of("T"),
            Map.of("mode", Attribute.StringValue.class), types("T", OnnxTypes.ANY, "pads", I64));
    /** Pad 18: optional {@code axes} input. */
    public static final OpSchema PAD_18 = schema("Pad", 18, 18, 2, List.of("T", "pads", "T", "Tind"), List.of("T"),
            Map.of("mode", Attribute.StringValue.class), types("T", OnnxTypes.ANY, "pads", I64, "Tind", OnnxTypes.INDICES));
    /** Pad 19..25: mode {@code wrap} too. */
    public static final OpSchema PAD_19 = schema("Pad", 19, 25, 2, List.of("T", "pads", "T", "Tind"), List.of("T"),
            Map.of("mode", Attribute.StringValue.class), types("T", OnnxTypes.ANY, "pads", I64, "Tind", OnnxTypes.INDICES));

    public static final OpSchema EXPAND = schema("Expand", 8, 25, 2, List.of("T", "shape"), List.of("T"), Map.of(),
            types("T", OnnxTypes.ANY, "shape", I64));

    /** Tile 1..5: {@code tiles} copies along {@code axis}, both scalar inputs. */
    public static final OpSchema TILE_1 = schema("Tile", 1, 5, 3, List.of("T", "T", "T"), List.of("T"), Map.of(),
            types("T", OnnxTypes.FLOATS));
    /** Tile 6..25: {@code repeats}, one per dimension. */
    public static final OpSchema TILE_6 = schema("Tile", 6, 25, 2, List.of("T", "T1"), List.of("T"), Map.of(),
            types("T", OnnxTypes.ANY, "T1", I64));

    /** Gather 1..25 (negative indices from 11; read as such throughout). */
    public static final OpSchema GATHER = schema("Gather", 1, 25, 2, List.of("T", "Tind"), List.of("T"),
            Map.of("axis", Attribute.IntValue.class), types("T", OnnxTypes.ANY, "Tind", OnnxTypes.INDICES));
    public static final OpSchema GATHER_ELEMENTS = schema("GatherElements", 11, 25, 2, List.of("T", "Tind"), List.of("T"),
            Map.of("axis", Attribute.IntValue.class), types("T", OnnxTypes.ANY, "Tind", OnnxTypes.INDICES));

    /** ScatterND 11..15: updates replace. */
    public static final OpSchema SCATTER_ND_11 = schema("ScatterND", 11, 15, 3, List.of("T", "indices", "T"), List.of("T"),
            Map.of(), types("T", OnnxTypes.ANY, "indices", I64));
    /** ScatterND 16..17: {@code reduction} none, add, mul. */
    public static final OpSchema SCATTER_ND_16 = schema("ScatterND", 16, 17, 3, List.of("T", "indices", "T"), List.of("T"),
            Map.of("reduction", Attribute.StringValue.class), types("T", OnnxTypes.ANY, "indices", I64));
    /** ScatterND 18..25: {@code reduction} max and min too. */
    public static final OpSchema SCATTER_ND_18 = schema("ScatterND", 18, 25, 3, List.of("T", "indices", "T"), List.of("T"),
            Map.of("reduction", Attribute.StringValue.class), types("T", OnnxTypes.ANY, "indices", I64));

    public static final OpSchema SHAPE_1 = schema("Shape", 1, 14, 1, List.of("T"), List.of("T1"), Map.of(),
            types("T", OnnxTypes.ANY, "T1", I64));
    /** Shape 15..25: {@code start} and {@code end} slice the shape. */
    public static final OpSchema SHAPE_15 = schema("Shape", 15, 25, 1, List.of("T"), List.of("T1"),
            Map.of("start", Attribute.IntValue.class, "end", Attribute.IntValue.class), types("T", OnnxTypes.ANY, "T1", I64));
    public static final OpSchema SIZE = schema("Size", 1, 25, 1, List.of("T"), List.of("T1"), Map.of(),
            types("T", OnnxTypes.ANY, "T1", I64));

    /** Constant 1..11: the {@code value} tensor ({@code sparse_value} from 11, which javaep cannot read). */
    public static final OpSchema CONSTANT_1 = schema("Constant", 1, 11, 0, List.of(), List.of("T"),
            Map.of("value", Attribute.TensorAttribute.class), types("T", OnnxTypes.ANY));
    /** Constant 12..25: {@code value}, or one of {@code value_float(s)}, {@code value_int(s)}, {@code value_string(s)}. */
    public static final OpSchema CONSTANT_12 = schema("Constant", 12, 25, 0, List.of(), List.of("T"),
            Map.of("value", Attribute.TensorAttribute.class, "value_float", Attribute.FloatValue.class,
                    "value_floats", Attribute.FloatList.class, "value_int", Attribute.IntValue.class,
                    "value_ints", Attribute.IntList.class, "value_string", Attribute.StringValue.class,
                    "value_strings", Attribute.StringList.class),
            types("T", OnnxTypes.ANY));
    public static final OpSchema CONSTANT_OF_SHAPE = schema("ConstantOfShape", 9, 25, 1, List.of("T1"), List.of("T2"),
            Map.of("value", Attribute.TensorAttribute.class), types("T1", I64, "T2", OnnxTypes.ANY));
    public static final OpSchema RANGE = schema("Range", 11, 25, 3, List.of("T", "T", "T"), List.of("T"), Map.of(),
            types("T", RANGE_TYPES));

    /** DepthToSpace 1..10: DCR order only. */
    public static final OpSchema DEPTH_TO_SPACE_1 = schema("DepthToSpace", 1, 10, 1, List.of("T"), List.of("T"),
            Map.of("blocksize", Attribute.IntValue.class), types("T", OnnxTypes.ANY));
    /** DepthToSpace 11..25: {@code mode} DCR (default) or CRD. */
    public static final OpSchema DEPTH_TO_SPACE_11 = schema("DepthToSpace", 11, 25, 1, List.of("T"), List.of("T"),
            Map.of("blocksize", Attribute.IntValue.class, "mode", Attribute.StringValue.class), types("T", OnnxTypes.ANY));
    public static final OpSchema SPACE_TO_DEPTH = schema("SpaceToDepth", 1, 25, 1, List.of("T"), List.of("T"),
            Map.of("blocksize", Attribute.IntValue.class), types("T", OnnxTypes.ANY));

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = List.of(IDENTITY, RESHAPE_1, RESHAPE_5, RESHAPE_14, FLATTEN_1, FLATTEN_9,
            SQUEEZE_1, SQUEEZE_13, UNSQUEEZE_1, UNSQUEEZE_13, TRANSPOSE, CONCAT_1, CONCAT_4, SPLIT_1, SPLIT_2, SPLIT_13,
            SPLIT_18, SLICE_1, SLICE_10, PAD_1, PAD_2, PAD_11, PAD_18, PAD_19, EXPAND, TILE_1, TILE_6, GATHER,
            GATHER_ELEMENTS, SCATTER_ND_11, SCATTER_ND_16, SCATTER_ND_18, SHAPE_1, SHAPE_15, SIZE, CONSTANT_1,
            CONSTANT_12, CONSTANT_OF_SHAPE, RANGE, DEPTH_TO_SPACE_1, DEPTH_TO_SPACE_11, SPACE_TO_DEPTH);

    // ---- strided copies ------------------------------------------------------------------------

    /**
     * One element copy walked over an index space: element {@code idx} (row-major over {@code shape}) is read
     * at {@code sourceOffset + Σ idx[k]·sourceStrides[k]} and written at {@code targetOffset + Σ idx[k]·targetStrides[k]},
     * offsets and strides in elements. A stride of 0 repeats (broadcast), a negative one walks backwards.
     * <pre>{@code
     * for (idx over shape) out[targetOffset + dot(idx, targetStrides)] = in[sourceOffset + dot(idx, sourceStrides)]
     * }</pre>
     */
    public record StridedCopy(long[] shape, long[] sourceStrides, long sourceOffset, long[] targetStrides, long targetOffset) {
        public StridedCopy {
            if (sourceStrides.length != shape.length || targetStrides.length != shape.length) {
                throw new IllegalArgumentException("a strided copy needs one stride per dimension in each view");
            }
            shape = shape.clone();
            sourceStrides = sourceStrides.clone();
            targetStrides = targetStrides.clone();
        }

        /** A copy into a contiguous row-major target of {@code shape}: the gather form most ops have. */
        public static StridedCopy intoContiguous(long[] shape, long[] sourceStrides, long sourceOffset) {
            return new StridedCopy(shape, sourceStrides, sourceOffset, contiguousStrides(shape), 0);
        }

        public long elementCount() {
            return Tensor.elementCount(shape);
        }

        public int rank() {
            return shape.length;
        }

        /**
         * The same copy over the fewest dimensions: dimensions of size 1 dropped, neighbours that are contiguous
         * in both views merged (a transpose of [2,3,4] by [0,2,1] stays rank 3; a plain copy becomes rank 1).
         * An empty copy stays as it is.
         */
        public StridedCopy simplified() {
            if (elementCount() == 0) {
                return this;
            }
            List<long[]> dims = new ArrayList<>(); // {size, sourceStride, targetStride}, size-1 dimensions dropped
            for (int k = 0; k < shape.length; k++) {
                if (shape[k] != 1) {
                    dims.add(new long[] {shape[k], sourceStrides[k], targetStrides[k]});
                }
            }
            // merge from the innermost outwards: outer dimension o folds into inner dimension i when
            // stride(o) == stride(i) * size(i) in both views
            List<long[]> merged = new ArrayList<>();
            for (int k = dims.size() - 1; k >= 0; k--) {
                long[] outer = dims.get(k);
                if (!merged.isEmpty()) {
                    long[] inner = merged.getLast();
                    if (outer[1] == inner[1] * inner[0] && outer[2] == inner[2] * inner[0]) {
                        inner[0] *= outer[0];
                        continue;
                    }
                }
                merged.add(outer.clone());
            }
            long[][] columns = outermostFirst(merged, 3);
            return new StridedCopy(columns[0], columns[1], sourceOffset, columns[2], targetOffset);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof StridedCopy c && Arrays.equals(shape, c.shape) && Arrays.equals(sourceStrides, c.sourceStrides)
                    && sourceOffset == c.sourceOffset && Arrays.equals(targetStrides, c.targetStrides)
                    && targetOffset == c.targetOffset;
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(shape) * 31 + Arrays.hashCode(sourceStrides);
        }

        @Override
        public String toString() {
            return "StridedCopy" + Arrays.toString(shape) + " from +" + sourceOffset + Arrays.toString(sourceStrides) + " to +"
                    + targetOffset + Arrays.toString(targetStrides);
        }
    }

    /** An op whose output is one strided copy of its input: the output's shape and the copy (into it, contiguous). */
    public record Rearrangement(long[] outputShape, StridedCopy copy) {}

    /** Element strides of a contiguous row-major tensor. */
    public static long[] contiguousStrides(long[] shape) {
        long[] strides = new long[shape.length];
        long stride = 1;
        for (int k = shape.length - 1; k >= 0; k--) {
            strides[k] = stride;
            stride = Math.multiplyExact(stride, Math.max(shape[k], 1));
        }
        return strides;
    }

    /** {@code axis} in {@code [-rank, rank)} made non-negative. */
    public static int axis(String op, long axis, int rank) {
        if (axis < -rank || axis >= rank) {
            throw new IllegalArgumentException(op + ": axis " + axis + " is out of range for rank " + rank);
        }
        return (int) (axis < 0 ? axis + rank : axis);
    }

    /** The values of a required INTS attribute, or an exception naming it. */
    public static long[] requiredInts(Node node, String attribute) {
        long[] values = ints(node, attribute);
        if (values == null) {
            throw new IllegalArgumentException(node.opType() + ": attribute " + attribute + " is required");
        }
        return values;
    }

    /** A required INT attribute, or an exception naming it. */
    public static long requiredInt(Node node, String attribute) {
        if (!(node.attributes().get(attribute) instanceof Attribute.IntValue(var n, var v))) {
            throw new IllegalArgumentException(node.opType() + ": attribute " + attribute + " is required");
        }
        return v;
    }

    /** DepthToSpace's and SpaceToDepth's {@code blocksize} (required, positive). */
    public static long blocksize(Node node) {
        long b = requiredInt(node, "blocksize");
        if (b <= 0) {
            throw new IllegalArgumentException(node.opType() + ": blocksize " + b + " must be positive");
        }
        return b;
    }

    /** Whether DepthToSpace's {@code mode} is CRD (default DCR). */
    public static boolean columnRowDepth(Node node) {
        return OnnxOps.twoValued(node, "mode", "DCR", "CRD");
    }

    /** Split-18's {@code num_outputs}, or null; with the split input too, the node is malformed. */
    public static Long splitNumOutputs(Node node) {
        if (node.attribute("num_outputs").isEmpty()) {
            return null;
        }
        if (node.input(1) != null) {
            throw new IllegalArgumentException("Split: both the split input and num_outputs are given");
        }
        return requiredInt(node, "num_outputs");
    }

    /** Shape-15's {@code end}, or null when absent (the rank). */
    public static Long shapeEnd(Node node) {
        return node.attributes().get("end") instanceof Attribute.IntValue(var n, var v) ? v : null;
    }

    /** The values of an INTS attribute, or null when absent. */
    public static long[] ints(Node node, String attribute) {
        List<Long> values = node.intsAttribute(attribute, null);
        return values == null ? null : values.stream().mapToLong(Long::longValue).toArray();
    }

    /**
     * Dimensions collected innermost first as {@code fields}-long rows ({size, stride, ...}), turned into one array
     * per field, outermost dimension first: how simplified strided views are built.
     */
    static long[][] outermostFirst(List<long[]> innermostFirst, int fields) {
        int rank = innermostFirst.size();
        long[][] columns = new long[fields][rank];
        for (int k = 0; k < rank; k++) {
            long[] dimension = innermostFirst.get(rank - 1 - k);
            for (int f = 0; f < fields; f++) {
                columns[f][k] = dimension[f];
            }
        }
        return columns;
    }

    private static long elementCount(long[] shape) {
        long n = 1;
        for (long d : shape) {
            if (d < 0) {
                throw new IllegalArgumentException("negative dimension in " + Arrays.toString(shape));
            }
            n = Math.multiplyExact(n, d);
        }
        return n;
    }

    // ---- views: Reshape, Flatten, Squeeze, Unsqueeze ---------------------------------------------

    /**
     * Reshape's output shape: a 0 copies the input's dimension (unless {@code allowZero}, when it is a zero-sized
     * dimension), one -1 is inferred from the element count.
     */
    public static long[] reshapeShape(long[] input, long[] requested, boolean allowZero) {
        long[] out = requested.clone();
        int inferred = -1;
        long known = 1;
        boolean hasZero = false;
        for (int i = 0; i < out.length; i++) {
            long d = out[i];
            if (d == -1) {
                if (inferred >= 0) {
                    throw new IllegalArgumentException("Reshape: more than one -1 in shape " + Arrays.toString(requested));
                }
                inferred = i;
                continue;
            }
            if (d == 0 && !allowZero) {
                if (i >= input.length) {
                    throw new IllegalArgumentException("Reshape: shape " + Arrays.toString(requested) + " copies dimension "
                            + i + " of an input of rank " + input.length);
                }
                d = input[i];
                out[i] = d;
            } else if (d < 0) {
                throw new IllegalArgumentException("Reshape: invalid dimension " + d + " in shape " + Arrays.toString(requested));
            }
            hasZero |= d == 0 && allowZero;
            known = Math.multiplyExact(known, d);
        }
        long total = elementCount(input);
        if (inferred >= 0) {
            if (hasZero) {
                throw new IllegalArgumentException("Reshape: with allowzero, shape " + Arrays.toString(requested)
                        + " may not hold both 0 and -1");
            }
            if (known == 0 || total % known != 0) {
                throw new IllegalArgumentException("Reshape: cannot infer the -1 in " + Arrays.toString(requested)
                        + " for " + total + " elements of " + Arrays.toString(input));
            }
            out[inferred] = total / known;
        } else if (known != total) {
            throw new IllegalArgumentException("Reshape: shape " + Arrays.toString(requested) + " holds " + known
                    + " elements, the input " + Arrays.toString(input) + " has " + total);
        }
        return out;
    }

    /** Flatten's output: [product of dims before axis, product from axis], axis in [-rank, rank]. */
    public static long[] flattenShape(long[] input, long axis) {
        int rank = input.length;
        if (axis < -rank || axis > rank) {
            throw new IllegalArgumentException("Flatten: axis " + axis + " is out of range for rank " + rank);
        }
        int a = (int) (axis < 0 ? axis + rank : axis);
        long outer = 1;
        long inner = 1;
        for (int i = 0; i < rank; i++) {
            if (i < a) {
                outer = Math.multiplyExact(outer, input[i]);
            } else {
                inner = Math.multiplyExact(inner, input[i]);
            }
        }
        return new long[] {outer, inner};
    }

    /** Squeeze's output: the listed axes (each of size 1) removed, or every dimension of size 1 when {@code axes} is null. */
    public static long[] squeezeShape(long[] input, long[] axes) {
        boolean[] drop = new boolean[input.length];
        if (axes == null) {
            for (int i = 0; i < input.length; i++) {
                drop[i] = input[i] == 1;
            }
        } else {
            for (long axis : axes) {
                int a = axis("Squeeze", axis, input.length);
                if (input[a] != 1) {
                    throw new IllegalArgumentException("Squeeze: dimension " + a + " of " + Arrays.toString(input) + " is not 1");
                }
                if (drop[a]) {
                    throw new IllegalArgumentException("Squeeze: axis " + a + " is listed twice");
                }
                drop[a] = true;
            }
        }
        long[] out = new long[input.length];
        int n = 0;
        for (int i = 0; i < input.length; i++) {
            if (!drop[i]) {
                out[n++] = input[i];
            }
        }
        return Arrays.copyOf(out, n);
    }

    /** Unsqueeze's output: a dimension of size 1 at each axis of the output (axes in [-outRank, outRank)). */
    public static long[] unsqueezeShape(long[] input, long[] axes) {
        if (axes == null) {
            throw new IllegalArgumentException("Unsqueeze: axes are required");
        }
        int rank = input.length + axes.length;
        boolean[] inserted = new boolean[rank];
        for (long axis : axes) {
            int a = axis("Unsqueeze", axis, rank);
            if (inserted[a]) {
                throw new IllegalArgumentException("Unsqueeze: axis " + a + " is listed twice");
            }
            inserted[a] = true;
        }
        long[] out = new long[rank];
        int next = 0;
        for (int i = 0; i < rank; i++) {
            out[i] = inserted[i] ? 1 : input[next++];
        }
        return out;
    }

    // ---- strided moves: Transpose, Slice, Expand, Tile, DepthToSpace, SpaceToDepth --------------

    /** Transpose by {@code perm} (null: reversed dimensions). */
    public static Rearrangement transpose(long[] input, long[] perm) {
        int rank = input.length;
        long[] p = perm;
        if (p == null) {
            p = new long[rank];
            for (int i = 0; i < rank; i++) {
                p[i] = rank - 1 - i;
            }
        }
        if (p.length != rank) {
            throw new IllegalArgumentException("Transpose: perm " + Arrays.toString(perm) + " does not match rank " + rank);
        }
        boolean[] seen = new boolean[rank];
        long[] in = contiguousStrides(input);
        long[] shape = new long[rank];
        long[] strides = new long[rank];
        for (int i = 0; i < rank; i++) {
            if (p[i] < 0 || p[i] >= rank || seen[(int) p[i]]) {
                throw new IllegalArgumentException("Transpose: perm " + Arrays.toString(perm) + " is not a permutation of 0.."
                        + (rank - 1));
            }
            seen[(int) p[i]] = true;
            shape[i] = input[(int) p[i]];
            strides[i] = in[(int) p[i]];
        }
        return new Rearrangement(shape, StridedCopy.intoContiguous(shape, strides, 0));
    }

    /**
     * Slice (opset 10 and later; opset 1..9 is the same with steps of 1): per listed axis, start and end are
     * counted from the back when negative and clamped ([0, dim] for a positive step, [-1, dim - 1] for a negative
     * one), then every step-th element from start towards end (exclusive). {@code axes} null means 0..n-1,
     * {@code steps} null means 1s.
     */
    public static Rearrangement slice(long[] input, long[] starts, long[] ends, long[] axes, long[] steps) {
        int rank = input.length;
        int n = starts.length;
        if (ends.length != n || axes != null && axes.length != n || steps != null && steps.length != n) {
            throw new IllegalArgumentException("Slice: starts, ends, axes and steps must have the same length, got "
                    + Arrays.toString(starts) + ", " + Arrays.toString(ends) + ", " + Arrays.toString(axes) + ", "
                    + Arrays.toString(steps));
        }
        long[] in = contiguousStrides(input);
        long[] shape = input.clone();
        long[] strides = in.clone();
        long offset = 0;
        boolean[] seen = new boolean[rank];
        for (int i = 0; i < n; i++) {
            int a = axis("Slice", axes == null ? i : axes[i], rank);
            if (seen[a]) {
                throw new IllegalArgumentException("Slice: axis " + a + " is listed twice");
            }
            seen[a] = true;
            long step = steps == null ? 1 : steps[i];
            if (step == 0) {
                throw new IllegalArgumentException("Slice: step 0 on axis " + a);
            }
            long dim = input[a];
            long start = starts[i];
            long end = ends[i];
            if (start < 0) {
                start += dim;
            }
            if (end < 0) {
                end += dim;
            }
            long count;
            if (step > 0) {
                start = Math.clamp(start, 0, dim);
                end = Math.clamp(end, 0, dim);
                count = end > start ? (end - start - 1) / step + 1 : 0;
            } else {
                start = Math.clamp(start, 0, dim - 1);
                end = Math.clamp(end, -1, dim - 1);
                count = start > end ? (start - end - 1) / -step + 1 : 0;
            }
            shape[a] = count;
            // a step past the dimension (INT64_MAX takes the first element) must not overflow a stride nobody walks
            strides[a] = count > 1 ? Math.multiplyExact(in[a], step) : 0;
            if (count > 0) {
                offset += start * in[a];
            }
        }
        return new Rearrangement(shape, StridedCopy.intoContiguous(shape, strides, offset));
    }

    /** Expand: bidirectional broadcast of the input against {@code shape}. */
    public static Rearrangement expand(long[] input, long[] shape) {
        long[] out;
        try {
            out = Broadcasting.multidirectional(input, shape);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Expand: " + e.getMessage(), e);
        }
        return new Rearrangement(out, StridedCopy.intoContiguous(out, broadcastStrides(input, out.length), 0));
    }

    /** Element strides of a contiguous input read broadcast to rank {@code rank}: 0 along its dimensions of size 1. */
    private static long[] broadcastStrides(long[] input, int rank) {
        return Broadcasting.strides(input, rank);
    }

    /**
     * Tile: the output, of dimension {@code d[k]·r[k]}, read as [r0, d0, r1, d1, ...] is the input repeated:
     * stride 0 along each repeat, the input's stride along each of its dimensions.
     */
    public static Rearrangement tile(long[] input, long[] repeats) {
        int rank = input.length;
        if (repeats.length != rank) {
            throw new IllegalArgumentException("Tile: " + repeats.length + " repeats for an input of rank " + rank);
        }
        long[] in = contiguousStrides(input);
        long[] out = new long[rank];
        long[] view = new long[2 * rank];
        long[] strides = new long[2 * rank];
        for (int k = 0; k < rank; k++) {
            if (repeats[k] < 0) {
                throw new IllegalArgumentException("Tile: negative repeat " + repeats[k]);
            }
            out[k] = Math.multiplyExact(input[k], repeats[k]);
            view[2 * k] = repeats[k];
            view[2 * k + 1] = input[k];
            strides[2 * k + 1] = in[k];
        }
        return new Rearrangement(out, StridedCopy.intoContiguous(view, strides, 0));
    }

    /**
     * DepthToSpace of an [N, C, H, W] input by {@code blocksize} b: the output [N, C/b², H·b, W·b] read as
     * [N, C', H, b, W, b] takes channel {@code (i·b + j)·C' + c} (DCR) or {@code c·b² + i·b + j} (CRD).
     */
    public static Rearrangement depthToSpace(long[] input, long blocksize, boolean crd) {
        if (input.length != 4 || blocksize <= 0 || input[1] % (blocksize * blocksize) != 0) {
            throw new IllegalArgumentException("DepthToSpace: input " + Arrays.toString(input) + " is not [N, C, H, W] with C"
                    + " divisible by blocksize² (blocksize " + blocksize + ")");
        }
        long n = input[0], c = input[1], h = input[2], w = input[3], b = blocksize, cOut = c / (b * b);
        long sN = c * h * w, sC = h * w, sH = w;
        long[] view = {n, cOut, h, b, w, b};
        long[] strides = crd
                ? new long[] {sN, b * b * sC, sH, b * sC, 1, sC}
                : new long[] {sN, sC, sH, b * cOut * sC, 1, cOut * sC};
        return new Rearrangement(new long[] {n, cOut, h * b, w * b}, StridedCopy.intoContiguous(view, strides, 0));
    }

    /** SpaceToDepth of [N, C, H, W] by b: output [N, C·b², H/b, W/b], channel {@code (i·b + j)·C + c} from pixel (h·b+i, w·b+j). */
    public static Rearrangement spaceToDepth(long[] input, long blocksize) {
        if (input.length != 4 || blocksize <= 0 || input[2] % blocksize != 0 || input[3] % blocksize != 0) {
            throw new IllegalArgumentException("SpaceToDepth: input " + Arrays.toString(input) + " is not [N, C, H, W] with H"
                    + " and W divisible by blocksize " + blocksize);
        }
        long n = input[0], c = input[1], h = input[2], w = input[3], b = blocksize;
        long[] view = {n, b, b, c, h / b, w / b};
        long[] strides = {c * h * w, w, 1, h * w, b * w, b};
        return new Rearrangement(new long[] {n, c * b * b, h / b, w / b}, StridedCopy.intoContiguous(view, strides, 0));
    }

    // ---- Concat and Split ------------------------------------------------------------------------

    /** Concat's output shape and one copy per input into its region of the output (an empty input gets none). */
    public record Concatenation(long[] outputShape, List<StridedCopy> parts) {}

    public static Concatenation concat(long[][] inputs, long axis) {
        if (inputs.length == 0) {
            throw new IllegalArgumentException("Concat: no inputs");
        }
        int rank = inputs[0].length;
        int a = axis("Concat", axis, rank);
        long[] out = inputs[0].clone();
        out[a] = 0;
        for (long[] shape : inputs) {
            if (shape.length != rank) {
                throw new IllegalArgumentException("Concat: inputs of rank " + rank + " and " + shape.length);
            }
            for (int k = 0; k < rank; k++) {
                if (k != a && shape[k] != out[k]) {
                    throw new IllegalArgumentException("Concat: input " + Arrays.toString(shape) + " differs from "
                            + Arrays.toString(inputs[0]) + " outside axis " + a);
                }
            }
            out[a] = Math.addExact(out[a], shape[a]);
        }
        long outer = elementCount(Arrays.copyOfRange(out, 0, a));
        long inner = elementCount(Arrays.copyOfRange(out, a + 1, rank));
        long row = Math.multiplyExact(out[a], inner);
        List<StridedCopy> parts = new ArrayList<>();
        long at = 0;
        for (long[] shape : inputs) {
            long part = shape[a] * inner;
            parts.add(new StridedCopy(new long[] {outer, part}, new long[] {part, 1}, 0, new long[] {row, 1}, at));
            at += part;
        }
        return new Concatenation(out, parts);
    }

    /** Split's output shapes and one copy per output out of its region of the input. */
    public record Splitting(long[][] outputShapes, List<StridedCopy> parts) {}

    /**
     * Split sizes along an axis of size {@code dim}: {@code split} when given (it must sum to dim), else
     * {@code numOutputs} parts of ceil(dim / numOutputs) with a smaller last one (opset 18), else
     * {@code outputs} equal parts (dim must divide).
     */
    public static long[] splitSizes(long dim, long[] split, Long numOutputs, int outputs) {
        if (split != null) {
            if (split.length != outputs) {
                throw new IllegalArgumentException("Split: " + split.length + " sizes for " + outputs + " outputs");
            }
            long sum = 0;
            for (long s : split) {
                if (s < 0) {
                    throw new IllegalArgumentException("Split: negative size in " + Arrays.toString(split));
                }
                sum = Math.addExact(sum, s);
            }
            if (sum != dim) {
                throw new IllegalArgumentException("Split: sizes " + Arrays.toString(split) + " do not sum to " + dim);
            }
            return split.clone();
        }
        long[] sizes = new long[outputs];
        if (numOutputs != null) {
            if (numOutputs != outputs) {
                throw new IllegalArgumentException("Split: num_outputs " + numOutputs + " but the node has " + outputs + " outputs");
            }
            long chunk = (dim + outputs - 1) / outputs;
            long left = dim;
            for (int i = 0; i < outputs; i++) {
                sizes[i] = Math.min(chunk, left);
                left -= sizes[i];
            }
            return sizes;
        }
        if (dim % outputs != 0) {
            throw new IllegalArgumentException("Split: dimension " + dim + " does not divide into " + outputs + " equal parts");
        }
        Arrays.fill(sizes, dim / outputs);
        return sizes;
    }

    public static Splitting split(long[] input, long axis, long[] sizes) {
        int rank = input.length;
        int a = axis("Split", axis, rank);
        long outer = elementCount(Arrays.copyOfRange(input, 0, a));
        long inner = elementCount(Arrays.copyOfRange(input, a + 1, rank));
        long row = Math.multiplyExact(input[a], inner);
        long[][] shapes = new long[sizes.length][];
        List<StridedCopy> parts = new ArrayList<>();
        long at = 0;
        for (int i = 0; i < sizes.length; i++) {
            shapes[i] = input.clone();
            shapes[i][a] = sizes[i];
            long part = sizes[i] * inner;
            parts.add(new StridedCopy(new long[] {outer, part}, new long[] {row, 1}, at, new long[] {part, 1}, 0));
            at += part;
        }
        return new Splitting(shapes, parts);
    }

    // ---- Pad ---------------------------------------------------------------------------------------

    /** How Pad fills the border: with a constant, or from the input (mirrored without the edge, the edge repeated, wrapped). */
    public enum PadMode {
        CONSTANT, REFLECT, EDGE, WRAP;

        /** The mode named by the node's {@code mode} attribute (default constant); wrap only from opset 19. */
        public static PadMode of(Node node) {
            PadMode m = OnnxOps.lowerCaseNamed(node, "mode", CONSTANT);
            if (m == WRAP && node.sinceVersion() < 19) {
                throw new IllegalArgumentException("Pad: mode 'wrap' needs opset 19, the node is Pad-" + node.sinceVersion());
            }
            return m;
        }

        /**
         * The input index along one axis of size {@code dim} that output index {@code i} (already shifted by the
         * begin pad, so it may lie outside [0, dim)) reads, or -1 for the constant. Reflect mirrors about the first
         * and last element without repeating them (period 2·(dim-1)); wrap repeats with period dim.
         */
        public long sourceIndex(long i, long dim) {
            if (i >= 0 && i < dim) {
                return i;
            }
            return switch (this) {
                case CONSTANT -> -1;
                case EDGE -> i < 0 ? 0 : dim - 1;
                case WRAP -> Math.floorMod(i, dim);
                case REFLECT -> {
                    if (dim == 1) {
                        yield 0;
                    }
                    long period = 2 * (dim - 1);
                    long m = Math.floorMod(i, period);
                    yield m < dim ? m : period - m;
                }
            };
        }
    }

    /** Pad's output shape and the begin pad of each axis (negative: the input is cropped there). */
    public record Padding(long[] outputShape, long[] begin) {}

    /**
     * Pad's geometry from {@code pads} ([begin of each axis..., end of each axis...]) over the listed {@code axes}
     * (null: every axis).
     */
    public static Padding pad(long[] input, long[] pads, long[] axes, PadMode mode) {
        int rank = input.length;
        int[] listed;
        if (axes == null) {
            listed = new int[rank];
            for (int i = 0; i < rank; i++) {
                listed[i] = i;
            }
        } else {
            listed = new int[axes.length];
            for (int i = 0; i < axes.length; i++) {
                listed[i] = axis("Pad", axes[i], rank);
            }
        }
        if (pads.length != 2 * listed.length) {
            throw new IllegalArgumentException("Pad: " + pads.length + " pads for " + listed.length + " axes");
        }
        long[] begin = new long[rank];
        long[] out = input.clone();
        for (int i = 0; i < listed.length; i++) {
            int a = listed[i];
            long b = pads[i];
            long e = pads[i + listed.length];
            begin[a] = b;
            out[a] = input[a] + b + e;
            if (out[a] < 0) {
                throw new IllegalArgumentException("Pad: pads " + Arrays.toString(pads) + " crop axis " + a + " of "
                        + Arrays.toString(input) + " below zero");
            }
            if (mode != PadMode.CONSTANT && input[a] == 0 && out[a] > 0) {
                throw new IllegalArgumentException("Pad: mode " + mode.name().toLowerCase(java.util.Locale.ROOT)
                        + " cannot pad axis " + a + " of size 0");
            }
        }
        return new Padding(out, begin);
    }

    // ---- Gather, GatherElements, ScatterND --------------------------------------------------------

    /** Gather as [outer, axisDim, inner] of the data read at {@code indexCount} indices: out is [outer, indexCount, inner]. */
    public record Gathering(long[] outputShape, long outer, long axisDim, long inner, long indexCount) {}

    public static Gathering gather(long[] data, long[] indices, long axis) {
        int rank = data.length;
        int a = axis("Gather", axis, rank);
        long[] out = new long[rank - 1 + indices.length];
        System.arraycopy(data, 0, out, 0, a);
        System.arraycopy(indices, 0, out, a, indices.length);
        System.arraycopy(data, a + 1, out, a + indices.length, rank - a - 1);
        return new Gathering(out, elementCount(Arrays.copyOfRange(data, 0, a)), data[a],
                elementCount(Arrays.copyOfRange(data, a + 1, rank)), elementCount(indices));
    }

    /** An index along an axis of {@code dim} elements, negative ones counted from the back, or an exception. */
    public static long index(String op, long index, long dim) {
        long i = index < 0 ? index + dim : index;
        if (i < 0 || i >= dim) {
            throw new IllegalArgumentException(op + ": index " + index + " is out of range for a dimension of " + dim);
        }
        return i;
    }

    /** GatherElements' axis (normalised) after checking the shapes: same rank, indices within the data outside the axis. */
    public static int gatherElementsAxis(long[] data, long[] indices, long axis) {
        int rank = data.length;
        int a = axis("GatherElements", axis, rank);
        if (indices.length != rank) {
            throw new IllegalArgumentException("GatherElements: indices of rank " + indices.length + " for data of rank " + rank);
        }
        for (int k = 0; k < rank; k++) {
            if (k != a && indices[k] > data[k]) {
                throw new IllegalArgumentException("GatherElements: indices " + Arrays.toString(indices) + " exceed data "
                        + Arrays.toString(data) + " on axis " + k);
            }
        }
        return a;
    }

    /** How ScatterND combines an update with the element it lands on. */
    public enum ScatterReduction {
        NONE, ADD, MUL, MAX, MIN;

        public static ScatterReduction of(Node node) {
            ScatterReduction reduction = OnnxOps.lowerCaseNamed(node, "reduction", NONE);
            if ((reduction == MAX || reduction == MIN) && node.sinceVersion() < 18) {
                throw new IllegalArgumentException(node.opType() + ": reduction '" + reduction.name().toLowerCase(Locale.ROOT)
                        + "' needs opset 18");
            }
            return reduction;
        }
    }

    /**
     * ScatterND on data of {@code dataShape}: {@code tuples} index tuples of {@code depth} coordinates (the
     * indices' last dimension), each addressing a slice of {@code sliceSize} elements at data offset
     * Σ coordinate·{@code strides}[j] (element strides of the first {@code depth} dimensions).
     */
    public record Scatter(long depth, long tuples, long sliceSize, long[] dataShape, long[] strides) {}

    public static Scatter scatterND(long[] data, long[] indices, long[] updates) {
        if (indices.length < 1) {
            throw new IllegalArgumentException("ScatterND: indices must have rank >= 1");
        }
        int depth = (int) indices[indices.length - 1];
        if (depth < 0 || depth > data.length) {
            throw new IllegalArgumentException("ScatterND: index depth " + depth + " exceeds data rank " + data.length);
        }
        long[] expected = new long[indices.length - 1 + data.length - depth];
        System.arraycopy(indices, 0, expected, 0, indices.length - 1);
        System.arraycopy(data, depth, expected, indices.length - 1, data.length - depth);
        if (!Arrays.equals(expected, updates)) {
            throw new IllegalArgumentException("ScatterND: updates " + Arrays.toString(updates) + " should be "
                    + Arrays.toString(expected));
        }
        long[] strides = Arrays.copyOf(contiguousStrides(data), depth);
        return new Scatter(depth, elementCount(Arrays.copyOf(indices, indices.length - 1)),
                elementCount(Arrays.copyOfRange(data, depth, data.length)), data.clone(), strides);
    }

    // ---- Shape, Size, Constant, ConstantOfShape, Range ---------------------------------------------

    /** Shape-15's [start, end) of a shape of {@code rank} dimensions: negatives from the back, clamped to [0, rank]. */
    public static int[] shapeSlice(int rank, long start, Long end) {
        long s = start < 0 ? start + rank : start;
        long e = end == null ? rank : end < 0 ? end + rank : end;
        s = Math.clamp(s, 0, rank);
        e = Math.clamp(e, 0, rank);
        return new int[] {(int) s, (int) Math.max(s, e)};
    }

    /** Range's element count: max(ceil((limit - start) / delta), 0) in exact integer arithmetic. */
    public static long rangeCount(long start, long limit, long delta) {
        if (delta == 0) {
            throw new IllegalArgumentException("Range: delta is 0");
        }
        long span = Math.subtractExact(limit, start);
        if (span == 0 || (span > 0) != (delta > 0)) {
            return 0;
        }
        return Math.ceilDiv(span, delta);
    }

    /** Range's element count for floating-point values. */
    public static long rangeCount(double start, double limit, double delta) {
        if (delta == 0) {
            throw new IllegalArgumentException("Range: delta is 0");
        }
        double n = Math.ceil((limit - start) / delta);
        if (!(n <= Integer.MAX_VALUE)) {
            throw new IllegalArgumentException("Range: " + n + " elements from " + start + " to " + limit + " by " + delta);
        }
        return Math.max((long) n, 0);
    }

    /**
     * Constant's value from whichever attribute the node has: {@code value} (a tensor), {@code value_float},
     * {@code value_floats}, {@code value_int}, {@code value_ints}. Strings are not fixed-size and are refused.
     */
    public static TensorValue constantValue(Node node) {
        List<TensorValue> values = new ArrayList<>();
        for (Attribute a : node.attributes().values()) {
            switch (a) {
                case Attribute.TensorAttribute t -> values.add(t.value());
                case Attribute.FloatValue f -> values.add(floats(new long[0], f.value()));
                case Attribute.FloatList f -> {
                    float[] v = new float[f.values().size()];
                    for (int i = 0; i < v.length; i++) {
                        v[i] = f.values().get(i);
                    }
                    values.add(floats(new long[] {v.length}, v));
                }
                case Attribute.IntValue i -> values.add(longs(new long[0], i.value()));
                case Attribute.IntList i -> values.add(longs(new long[] {i.values().size()},
                        i.values().stream().mapToLong(Long::longValue).toArray()));
                case Attribute.StringValue s -> throw new IllegalArgumentException("Constant: string values are not supported");
                case Attribute.StringList s -> throw new IllegalArgumentException("Constant: string values are not supported");
                default -> throw new IllegalArgumentException("Constant: attribute " + a.name() + " is not a value");
            }
        }
        if (values.size() != 1) {
            throw new IllegalArgumentException("Constant: exactly one value attribute is required, the node has " + values.size());
        }
        return ValueCheck.asOutput(node, values.getFirst());
    }

    /** ConstantOfShape's fill value: the {@code value} attribute (one element), else float 0. */
    public static TensorValue fillValue(Node node) {
        TensorValue value = node.attributes().get("value") instanceof Attribute.TensorAttribute(var n, var v) ? v
                : floats(new long[] {1}, 0f);
        if (value.elementCount() != 1) {
            throw new IllegalArgumentException("ConstantOfShape: value has " + value.elementCount() + " elements, not 1");
        }
        return ValueCheck.asOutput(node, value);
    }

    private static final class ValueCheck {
        /** {@code value} as the node's output: fixed-size, and of the output's element type where the graph declares one. */
        static TensorValue asOutput(Node node, TensorValue value) {
            requireFixedSize(node.opType(), value);
            ElementType declared = node.outputs().isEmpty() || node.outputs().getFirst() == null ? null
                    : node.outputs().getFirst().elementType();
            if (declared != null && declared != value.elementType()) {
                throw new IllegalArgumentException(node.opType() + ": the value is " + value.elementType() + ", the output "
                        + declared);
            }
            return value;
        }

        static void requireFixedSize(String op, TensorValue value) {
            int size = value.elementType().byteSize();
            if (size == 0) {
                throw new IllegalArgumentException(op + ": " + value.elementType() + " values are not fixed-size");
            }
            if (value.data().remaining() < value.elementCount() * size) {
                throw new IllegalArgumentException(op + ": the value holds " + value.data().remaining() + " bytes, "
                        + value.elementType() + Arrays.toString(value.shape()) + " needs " + value.elementCount() * size);
            }
        }
    }

    private static TensorValue floats(long[] shape, float... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            b.putFloat(v);
        }
        return new TensorValue(ElementType.FLOAT, shape, b.flip());
    }

    private static TensorValue longs(long[] shape, long... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            b.putLong(v);
        }
        return new TensorValue(ElementType.INT64, shape, b.flip());
    }

    /**
     * Pad-1/2's {@code value} attribute (a float) as the bits of one element of {@code type}, little-endian
     * (float16/bfloat16 rounded to nearest).
     */
    public static byte[] padValueBits(float value, ElementType type) {
        ByteBuffer b = ByteBuffer.allocate(type.byteSize()).order(ByteOrder.LITTLE_ENDIAN);
        switch (type) {
            case FLOAT -> b.putFloat(value);
            case DOUBLE -> b.putDouble(value);
            case FLOAT16 -> b.putShort(Float.floatToFloat16(value));
            case BFLOAT16 -> b.putShort(bfloat16(value));
            default -> throw new IllegalArgumentException("Pad: a float value for " + type);
        }
        return b.array();
    }

    /** float32 to bfloat16, round to nearest even (NaN stays NaN). */
    public static short bfloat16(float value) {
        int bits = Float.floatToRawIntBits(value);
        if (Float.isNaN(value)) {
            return (short) ((bits >>> 16) | 0x40);
        }
        return (short) ((bits + 0x7FFF + ((bits >>> 16) & 1)) >>> 16);
    }
}
