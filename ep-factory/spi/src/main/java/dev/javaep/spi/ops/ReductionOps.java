package dev.javaep.spi.ops;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reductions along axes: ReduceMean/Sum/Max/Min/Prod/L1/L2/SumSquare/LogSum/LogSumExp, ArgMax/ArgMin, Softmax,
 * LogSoftmax. Every opset version ONNX defines up to the newest ONNX Runtime knows has its schema (facts from
 * ONNX's {@code onnx/defs/reduction} and {@code onnx/defs/math}); beside them the shape rules both backends
 * start from: {@link ReduceGeometry} and {@link SoftmaxGeometry}. Backends: {@code dev.javaep.cpu.kernel.reduction},
 * {@code dev.javaep.cuda.kernel.reduction}.
 */
public final class ReductionOps {
    private ReductionOps() {}

    /** The last opset version the schemas of this file cover (ONNX 1.20's opset 25; none of these ops changed after 20). */
    static final int NEWEST = 25;

    /** The axes input of the opset-18 reductions (and ReduceSum-13): ONNX names its type constraint by the type itself. */
    public static final String AXES_TYPE = "tensor(int64)";

    /** ONNX's numeric_types_for_math_reduction: what the reductions take before opset 13. */
    private static final Set<ElementType> MATH_REDUCTION = Set.copyOf(EnumSet.of(ElementType.FLOAT16, ElementType.FLOAT,
            ElementType.DOUBLE, ElementType.UINT32, ElementType.UINT64, ElementType.INT32, ElementType.INT64));
    /** numeric_types_for_math_reduction_ir4: opset 13 adds bfloat16. */
    private static final Set<ElementType> MATH_REDUCTION_13 = OnnxTypes.union(MATH_REDUCTION, Set.of(ElementType.BFLOAT16));
    /** ONNX's all_numeric_types: every integer type and float16/float/double (ArgMax/ArgMin before 13). */
    private static final Set<ElementType> ALL_NUMERIC = OnnxTypes.union(OnnxTypes.INTEGERS,
            Set.of(ElementType.FLOAT16, ElementType.FLOAT, ElementType.DOUBLE));
    private static final Set<ElementType> ALL_NUMERIC_13 = OnnxTypes.union(ALL_NUMERIC, Set.of(ElementType.BFLOAT16));
    /** Softmax and LogSoftmax before 13: float16, float, double; 13 adds bfloat16. */
    private static final Set<ElementType> SOFTMAX_TYPES = Set.of(ElementType.FLOAT16, ElementType.FLOAT, ElementType.DOUBLE);

    /**
     * The ten Reduce ops: what each element contributes, how contributions combine, and what the reduced value
     * becomes. Reducing an empty set gives {@link #emptyValue} (ONNX 18's rule; Mean's 0/0 is NaN).
     */
    public enum Reduction {
        SUM("ReduceSum", 0),
        MEAN("ReduceMean", 0),
        MAX("ReduceMax", Double.NEGATIVE_INFINITY),
        MIN("ReduceMin", Double.POSITIVE_INFINITY),
        PROD("ReduceProd", 1),
        L1("ReduceL1", 0),
        L2("ReduceL2", 0),
        SUM_SQUARE("ReduceSumSquare", 0),
        LOG_SUM("ReduceLogSum", Double.NEGATIVE_INFINITY),
        LOG_SUM_EXP("ReduceLogSumExp", Double.NEGATIVE_INFINITY);

        private final String opType;
        private final double emptyValue;

        Reduction(String opType, double emptyValue) {
            this.opType = opType;
            this.emptyValue = emptyValue;
        }

        public String opType() {
            return opType;
        }

        /** The result of reducing no elements (floating-point types; integer Max/Min use the type's extreme). */
        public double emptyValue() {
            return this == MEAN ? Double.NaN : emptyValue;
        }

        /** The first opset version that takes {@code axes} as an input instead of an attribute. */
        public int axesInputSince() {
            return this == SUM ? 13 : 18;
        }

        /** The opset versions ONNX defines for this op. */
        int[] versions() {
            return switch (this) {
                case SUM -> new int[] {1, 11, 13};
                case MAX, MIN -> new int[] {1, 11, 12, 13, 18, 20};
                default -> new int[] {1, 11, 13, 18};
            };
        }

        /** Whether this op is an order statistic (Max, Min), which ONNX allows on 8-bit integers from 12 and bool from 20. */
        boolean selects() {
            return this == MAX || this == MIN;
        }

        public static Reduction of(String opType) {
            for (Reduction r : values()) {
                if (r.opType.equals(opType)) {
                    return r;
                }
            }
            throw new IllegalArgumentException(opType + " is not a Reduce op");
        }
    }

    private static final Map<Reduction, List<OpSchema>> REDUCE = reduceSchemas();

    /** Every schema of {@code reduction}, oldest first: one per ONNX version of the op. */
    public static List<OpSchema> schemas(Reduction reduction) {
        return REDUCE.get(reduction);
    }

    private static Map<Reduction, List<OpSchema>> reduceSchemas() {
        Map<Reduction, List<OpSchema>> all = new EnumMap<>(Reduction.class);
        for (Reduction r : Reduction.values()) {
            int[] versions = r.versions();
            List<OpSchema> schemas = new ArrayList<>();
            for (int i = 0; i < versions.length; i++) {
                int since = versions[i];
                int last = i + 1 < versions.length ? versions[i + 1] - 1 : NEWEST;
                schemas.add(reduceSchema(r, since, last, reduceTypes(r, since)));
            }
            all.put(r, List.copyOf(schemas));
        }
        return all;
    }

    private static Set<ElementType> reduceTypes(Reduction r, int since) {
        Set<ElementType> types = since >= 13 ? MATH_REDUCTION_13 : MATH_REDUCTION;
        if (r.selects() && since >= 12) {
            types = OnnxTypes.union(types, Set.of(ElementType.INT8, ElementType.UINT8));
        }
        if (r.selects() && since >= 20) {
            types = OnnxTypes.union(types, Set.of(ElementType.BOOL));
        }
        return types;
    }

    private static OpSchema reduceSchema(Reduction r, int since, int last, Set<ElementType> types) {
        if (since >= r.axesInputSince()) {
            return new OpSchema("", r.opType(), since, last, 1, List.of("T", AXES_TYPE), List.of("T"),
                    Map.of("keepdims", Attribute.IntValue.class, "noop_with_empty_axes", Attribute.IntValue.class),
                    Map.of("T", types, AXES_TYPE, Set.of(ElementType.INT64)));
        }
        return new OpSchema("", r.opType(), since, last, 1, List.of("T"), List.of("T"),
                Map.of("axes", Attribute.IntList.class, "keepdims", Attribute.IntValue.class), Map.of("T", types));
    }

    private static OpSchema argSchema(String op, int since, int last) {
        Map<String, Class<? extends Attribute>> attributes = since >= 12
                ? Map.of("axis", Attribute.IntValue.class, "keepdims", Attribute.IntValue.class,
                        "select_last_index", Attribute.IntValue.class)
                : Map.of("axis", Attribute.IntValue.class, "keepdims", Attribute.IntValue.class);
        return new OpSchema("", op, since, last, 1, List.of("T"), List.of(AXES_TYPE), attributes,
                Map.of("T", since >= 13 ? ALL_NUMERIC_13 : ALL_NUMERIC, AXES_TYPE, Set.of(ElementType.INT64)));
    }

    private static OpSchema softmaxSchema(String op, int since, int last) {
        return new OpSchema("", op, since, last, 1, List.of("T"), List.of("T"), Map.of("axis", Attribute.IntValue.class),
                Map.of("T", since >= 13 ? OnnxTypes.FLOATS : SOFTMAX_TYPES));
    }

    /** ArgMax 1..10: axis in [0, r-1] (ONNX Runtime accepts negative ones too), keepdims. */
    public static final OpSchema ARGMAX_1 = argSchema("ArgMax", 1, 10);
    /** ArgMax 11: axis in [-r, r-1]. */
    public static final OpSchema ARGMAX_11 = argSchema("ArgMax", 11, 11);
    /** ArgMax 12: select_last_index picks the last of equal extremes. */
    public static final OpSchema ARGMAX_12 = argSchema("ArgMax", 12, 12);
    /** ArgMax 13: bfloat16. */
    public static final OpSchema ARGMAX_13 = argSchema("ArgMax", 13, NEWEST);
    public static final OpSchema ARGMIN_1 = argSchema("ArgMin", 1, 10);
    public static final OpSchema ARGMIN_11 = argSchema("ArgMin", 11, 11);
    public static final OpSchema ARGMIN_12 = argSchema("ArgMin", 12, 12);
    public static final OpSchema ARGMIN_13 = argSchema("ArgMin", 13, NEWEST);

    /** Softmax 1..10: the input is coerced to 2-D at {@code axis} (default 1). */
    public static final OpSchema SOFTMAX_1 = softmaxSchema("Softmax", 1, 10);
    /** Softmax 11..12: as 1, with negative axes. */
    public static final OpSchema SOFTMAX_11 = softmaxSchema("Softmax", 11, 12);
    /** Softmax 13: along the one dimension {@code axis} (default -1). */
    public static final OpSchema SOFTMAX_13 = softmaxSchema("Softmax", 13, NEWEST);
    /** LogSoftmax 1..10: coerced to 2-D at {@code axis} (default 1), like Softmax 1. */
    public static final OpSchema LOG_SOFTMAX_1 = softmaxSchema("LogSoftmax", 1, 10);
    public static final OpSchema LOG_SOFTMAX_11 = softmaxSchema("LogSoftmax", 11, 12);
    /** LogSoftmax 13: along {@code axis} (default -1). */
    public static final OpSchema LOG_SOFTMAX_13 = softmaxSchema("LogSoftmax", 13, NEWEST);

    public static final List<OpSchema> ARGMAX = List.of(ARGMAX_1, ARGMAX_11, ARGMAX_12, ARGMAX_13);
    public static final List<OpSchema> ARGMIN = List.of(ARGMIN_1, ARGMIN_11, ARGMIN_12, ARGMIN_13);
    public static final List<OpSchema> SOFTMAX = List.of(SOFTMAX_1, SOFTMAX_11, SOFTMAX_13);
    public static final List<OpSchema> LOG_SOFTMAX = List.of(LOG_SOFTMAX_1, LOG_SOFTMAX_11, LOG_SOFTMAX_13);

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = allSchemas();

    private static List<OpSchema> allSchemas() {
        List<OpSchema> all = new ArrayList<>();
        for (Reduction r : Reduction.values()) {
            all.addAll(schemas(r));
        }
        all.addAll(ARGMAX);
        all.addAll(ARGMIN);
        all.addAll(SOFTMAX);
        all.addAll(LOG_SOFTMAX);
        return List.copyOf(all);
    }

    /**
     * A Reduce node's attributes, read once: where its axes come from (the {@code axes} attribute before
     * {@link Reduction#axesInputSince}, input 1 from then on), {@code keepdims} and {@code noop_with_empty_axes}.
     *
     * @param attributeAxes the attribute's axes (empty = every axis), or null when the axes are input 1
     */
    public record ReduceAttributes(Reduction reduction, long[] attributeAxes, boolean keepdims, boolean noopWithEmptyAxes) {

        public static ReduceAttributes of(Node node) {
            Reduction reduction = Reduction.of(node.opType());
            boolean keepdims = node.intAttribute("keepdims", 1) != 0;
            if (node.sinceVersion() >= reduction.axesInputSince()) {
                return new ReduceAttributes(reduction, null, keepdims, node.intAttribute("noop_with_empty_axes", 0) != 0);
            }
            long[] axes = node.intsAttribute("axes", List.of()).stream().mapToLong(Long::longValue).toArray();
            int rank = node.input(0) == null ? -1 : node.input(0).rank();
            if (rank >= 0) {
                ReduceGeometry.reducedAxes(reduction.opType(), rank, axes); // a malformed model is declined, not failed at Run
            }
            return new ReduceAttributes(reduction, axes, keepdims, false);
        }

        /** Whether the axes are input 1 (a tensor, read at Run or from a constant). */
        public boolean axesFromInput() {
            return attributeAxes == null;
        }

        /** The geometry for an input of {@code shape}, with {@code inputAxes} the values of input 1 (null when omitted). */
        public ReduceGeometry geometry(long[] shape, long[] inputAxes) {
            long[] axes = axesFromInput() ? (inputAxes == null ? new long[0] : inputAxes) : attributeAxes;
            return ReduceGeometry.of(reduction.opType(), shape, axes, keepdims, axesFromInput() && noopWithEmptyAxes);
        }
    }

    /**
     * What a reduction reads and writes, given the input shape and the axes: which input dimensions are reduced,
     * the output shape, and the same thing simplified for a kernel ({@link #groups}): dimensions of size 1 dropped
     * and neighbours of the same kind (reduced or kept) merged, so "reduce H and W of NCHW" is one reduced group
     * of H*W after a kept group of N*C, i.e. rows. Empty axes reduce every dimension, unless
     * {@code noopWithEmptyAxes}, when nothing is reduced (each output is its one input, transformed).
     *
     * @param reduced      per input dimension, whether it is reduced
     * @param outputShape  the input shape with reduced dimensions set to 1 ({@code keepdims}) or removed
     * @param reducedCount how many input elements make one output element (0: every output is the empty value)
     */
    public record ReduceGeometry(long[] inputShape, boolean[] reduced, long[] outputShape, long reducedCount,
                                 long outputCount) {

        public static ReduceGeometry of(String op, long[] inputShape, long[] axes, boolean keepdims, boolean noopWithEmptyAxes) {
            int rank = inputShape.length;
            boolean[] reduced = new boolean[rank];
            if (axes.length == 0) {
                Arrays.fill(reduced, !noopWithEmptyAxes);
            } else {
                reduced = reducedAxes(op, rank, axes);
            }
            long[] out = new long[rank];
            int outRank = 0;
            long reducedCount = 1;
            long outputCount = 1;
            for (int d = 0; d < rank; d++) {
                if (reduced[d]) {
                    reducedCount = Math.multiplyExact(reducedCount, inputShape[d]);
                    if (keepdims) {
                        out[outRank++] = 1;
                    }
                } else {
                    out[outRank++] = inputShape[d];
                    outputCount = Math.multiplyExact(outputCount, inputShape[d]);
                }
            }
            return new ReduceGeometry(inputShape.clone(), reduced, Arrays.copyOf(out, outRank), reducedCount, outputCount);
        }

        /** Which dimensions {@code axes} name (each in [-rank, rank); a repeated axis counts once, as in ONNX Runtime). */
        static boolean[] reducedAxes(String op, int rank, long[] axes) {
            boolean[] reduced = new boolean[rank];
            for (long axis : axes) {
                if (axis < -rank || axis >= rank) {
                    throw new IllegalArgumentException(op + ": axis " + axis + " is out of range for an input of rank " + rank);
                }
                reduced[(int) (axis < 0 ? axis + rank : axis)] = true;
            }
            return reduced;
        }

        /** The input dimensions simplified: size-1 dimensions dropped, neighbours of the same kind merged. */
        public Groups groups() {
            // Walked innermost first: {size, element stride of its innermost dimension, reduced ? 1 : 0}.
            List<long[]> groups = new ArrayList<>();
            long stride = 1;
            for (int d = inputShape.length - 1; d >= 0; d--) {
                long size = inputShape[d];
                if (size != 1) {
                    long kind = reduced[d] ? 1 : 0;
                    if (!groups.isEmpty() && groups.getLast()[2] == kind) {
                        groups.getLast()[0] *= size; // contiguous with the group: one dimension, same innermost stride
                    } else {
                        groups.add(new long[] {size, stride, kind});
                    }
                }
                stride = Math.multiplyExact(stride, size);
            }
            long[][] columns = TensorOps.outermostFirst(groups, 3);
            boolean[] reducedGroups = new boolean[groups.size()];
            for (int i = 0; i < reducedGroups.length; i++) {
                reducedGroups[i] = columns[2][i] == 1;
            }
            return new Groups(columns[0], columns[1], reducedGroups);
        }
    }

    /**
     * An input's dimensions as a reduction walks them, outermost first: merged sizes, each group's element stride in
     * the input (that of its innermost dimension), and whether the group is reduced. Kept groups, in order, index the
     * output; reduced groups, in order, index the elements of one output.
     */
    public record Groups(long[] sizes, long[] strides, boolean[] reduced) {
        /** How many reduced groups there are (0: nothing reduced or only size-1 dimensions; 1: [outer, R, inner]). */
        public int reducedGroups() {
            int n = 0;
            for (boolean r : reduced) {
                n += r ? 1 : 0;
            }
            return n;
        }

        /**
         * When at most one group is reduced: {outer, R, inner}, the input seen as [outer, R, inner] with the
         * reduction along the middle (R = 1 when nothing is reduced). Null when several groups are reduced.
         */
        public long[] outerReducedInner() {
            if (reducedGroups() > 1) {
                return null;
            }
            long outer = 1;
            long r = 1;
            long inner = 1;
            boolean seen = false;
            for (int i = 0; i < sizes.length; i++) {
                if (reduced[i]) {
                    r = sizes[i];
                    seen = true;
                } else if (seen) {
                    inner *= sizes[i];
                } else {
                    outer *= sizes[i];
                }
            }
            if (!seen) {
                // nothing reduced: every element is its own output
                return new long[] {outer, 1, 1};
            }
            return new long[] {outer, r, inner};
        }

        /** The sizes and strides of the kept ({@code reducedOnes} false) or reduced groups, outermost first. */
        public long[][] select(boolean reducedOnes) {
            int n = 0;
            for (boolean r : reduced) {
                n += r == reducedOnes ? 1 : 0;
            }
            long[] s = new long[n];
            long[] t = new long[n];
            for (int i = 0, j = 0; i < sizes.length; i++) {
                if (reduced[i] == reducedOnes) {
                    s[j] = sizes[i];
                    t[j++] = strides[i];
                }
            }
            return new long[][] {s, t};
        }
    }

    /**
     * Where Softmax and LogSoftmax normalise: the input as [outer, length, inner] with the normalisation along the
     * middle. Before opset 13 ({@code coerceTo2d}) the input is a matrix [d0*..*d(axis-1), d(axis)*..*d(n-1)] and
     * each row is normalised (inner = 1); from 13 along the single dimension {@code axis}.
     */
    public record SoftmaxGeometry(long outer, long length, long inner) {

        /** The default {@code axis} of a Softmax or LogSoftmax of this opset version. */
        public static long defaultAxis(int sinceVersion) {
            return sinceVersion < 13 ? 1 : -1;
        }

        public static SoftmaxGeometry of(String op, long[] shape, long axis, boolean coerceTo2d) {
            int rank = shape.length;
            if (axis < -rank || axis >= rank) {
                throw new IllegalArgumentException(op + ": axis " + axis + " is out of range for a tensor of rank " + rank
                        + (rank == 0 ? " (a scalar has no axis)" : ""));
            }
            int a = (int) (axis < 0 ? axis + rank : axis);
            long outer = product(shape, 0, a);
            if (coerceTo2d) {
                return new SoftmaxGeometry(outer, product(shape, a, rank), 1);
            }
            return new SoftmaxGeometry(outer, shape[a], product(shape, a + 1, rank));
        }

        private static long product(long[] shape, int from, int to) {
            long n = 1;
            for (int i = from; i < to; i++) {
                n = Math.multiplyExact(n, shape[i]);
            }
            return n;
        }
    }
}
