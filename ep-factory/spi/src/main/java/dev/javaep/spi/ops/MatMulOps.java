package dev.javaep.spi.ops;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.Tensor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * MatMul (with batch broadcasting), Gemm and Einsum, every opset version ONNX defines (facts from ONNX's
 * {@code onnx/defs/math}), with the shape rules both backends start from: {@link MatMulGeometry},
 * {@link GemmGeometry} (ONNX Runtime's matmul_helper and gemm_helper) and {@link EinsumGeometry}. Backends: {@code dev.javaep.cpu.kernel.matmul},
 * {@code dev.javaep.cuda.kernel.matmul}.
 */
public final class MatMulOps {
    private MatMulOps() {}

    /** float16, float, double: MatMul before 9, Gemm before 9. */
    private static final Set<ElementType> FLOATS_ONLY = Set.of(ElementType.FLOAT16, ElementType.FLOAT, ElementType.DOUBLE);
    /** Opset 9 adds the 32- and 64-bit integers. */
    private static final Set<ElementType> TYPES_9 = OnnxTypes.union(FLOATS_ONLY, Set.of(ElementType.UINT32,
            ElementType.UINT64, ElementType.INT32, ElementType.INT64));
    /** Opset 13 adds bfloat16. */
    private static final Set<ElementType> TYPES_13 = OnnxTypes.union(TYPES_9, Set.of(ElementType.BFLOAT16));

    private static final Map<String, Class<? extends Attribute>> GEMM_ATTRIBUTES = Map.of(
            "alpha", Attribute.FloatValue.class, "beta", Attribute.FloatValue.class,
            "transA", Attribute.IntValue.class, "transB", Attribute.IntValue.class);
    /** Gemm 1 and 6 also have {@code broadcast}: without it C must be [M, N]. */
    private static final Map<String, Class<? extends Attribute>> GEMM_1_ATTRIBUTES = Map.of(
            "alpha", Attribute.FloatValue.class, "beta", Attribute.FloatValue.class,
            "transA", Attribute.IntValue.class, "transB", Attribute.IntValue.class, "broadcast", Attribute.IntValue.class);

    private static OpSchema matmul(int since, int last, Set<ElementType> types) {
        return new OpSchema("", "MatMul", since, last, 2, List.of("T", "T"), List.of("T"), Map.of(), Map.of("T", types));
    }

    private static OpSchema gemm(int since, int last, int minInputs, Map<String, Class<? extends Attribute>> attributes,
                                 Set<ElementType> types) {
        return new OpSchema("", "Gemm", since, last, minInputs, List.of("T", "T", "T"), List.of("T"), attributes,
                Map.of("T", types));
    }

    /** MatMul 1..8: numpy's matmul on float16/float/double. */
    public static final OpSchema MATMUL_1 = matmul(1, 8, FLOATS_ONLY);
    /** MatMul 9..12: integer types. */
    public static final OpSchema MATMUL_9 = matmul(9, 12, TYPES_9);
    /** MatMul 13: bfloat16. */
    public static final OpSchema MATMUL_13 = matmul(13, ReductionOps.NEWEST, TYPES_13);
    /** Gemm 1..5: C required; {@code broadcast} says whether C may broadcast. */
    public static final OpSchema GEMM_1 = gemm(1, 5, 3, GEMM_1_ATTRIBUTES, FLOATS_ONLY);
    /** Gemm 6: as 1 (ONNX dropped the legacy consumed_inputs). */
    public static final OpSchema GEMM_6 = gemm(6, 6, 3, GEMM_1_ATTRIBUTES, FLOATS_ONLY);
    /** Gemm 7..8: C required, broadcasts unidirectionally to [M, N]; no {@code broadcast}. */
    public static final OpSchema GEMM_7 = gemm(7, 8, 3, GEMM_ATTRIBUTES, FLOATS_ONLY);
    /** Gemm 9..10: integer types. */
    public static final OpSchema GEMM_9 = gemm(9, 10, 3, GEMM_ATTRIBUTES, TYPES_9);
    /** Gemm 11..12: C is optional. */
    public static final OpSchema GEMM_11 = gemm(11, 12, 2, GEMM_ATTRIBUTES, TYPES_9);
    /** Gemm 13: bfloat16. */
    public static final OpSchema GEMM_13 = gemm(13, ReductionOps.NEWEST, 2, GEMM_ATTRIBUTES, TYPES_13);

    /**
     * The inputs the Einsum schema lists: ONNX allows any number, the schema stops here (a node with more is
     * declined for arity; einsum equations of models have one to three operands).
     */
    public static final int EINSUM_MAX_INPUTS = 16;
    /** Einsum 12..: numpy's einsum on the numeric types; one attribute, the equation. */
    public static final OpSchema EINSUM = new OpSchema("", "Einsum", 12, ReductionOps.NEWEST, 1,
            Collections.nCopies(EINSUM_MAX_INPUTS, "T"), List.of("T"),
            Map.of("equation", Attribute.StringValue.class), Map.of("T", OnnxTypes.NUMERIC));

    public static final List<OpSchema> MATMUL = List.of(MATMUL_1, MATMUL_9, MATMUL_13);
    public static final List<OpSchema> GEMM = List.of(GEMM_1, GEMM_6, GEMM_7, GEMM_9, GEMM_11, GEMM_13);

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = List.of(MATMUL_1, MATMUL_9, MATMUL_13, GEMM_1, GEMM_6, GEMM_7, GEMM_9,
            GEMM_11, GEMM_13, EINSUM);

    /**
     * One MatMul with numpy semantics: a 1-D A is a row vector and a 1-D B a column vector (the added dimension is
     * removed from the result), and the leading batch dimensions broadcast. The product is {@code batch} matrices
     * [m, k]·[k, n]; {@code aBatchStrides}/{@code bBatchStrides} give, per output batch dimension, how many matrices
     * each operand advances (0 where it is broadcast).
     */
    public record MatMulGeometry(long m, long k, long n, long[] batch, long[] aBatchStrides, long[] bBatchStrides,
                                 long[] outputShape) {

        public static MatMulGeometry of(long[] a, long[] b) {
            if (a.length == 0 || b.length == 0) {
                throw new IllegalArgumentException("MatMul: inputs must have rank 1 or more, got shapes "
                        + Arrays.toString(a) + " and " + Arrays.toString(b));
            }
            long m = a.length == 1 ? 1 : a[a.length - 2];
            long k = a[a.length - 1];
            long kb = b.length == 1 ? b[0] : b[b.length - 2];
            long n = b.length == 1 ? 1 : b[b.length - 1];
            if (k != kb) {
                throw new IllegalArgumentException("MatMul: inner dimensions differ: A " + Arrays.toString(a)
                        + " has K=" + k + " but B " + Arrays.toString(b) + " has K=" + kb);
            }
            long[] batchA = Arrays.copyOf(a, Math.max(0, a.length - 2));
            long[] batchB = Arrays.copyOf(b, Math.max(0, b.length - 2));
            long[] batch;
            try {
                batch = Broadcasting.multidirectional(batchA, batchB);
            } catch (IllegalArgumentException e) {
                throw new IllegalArgumentException("MatMul: batch dimensions of " + Arrays.toString(a) + " and "
                        + Arrays.toString(b) + " do not broadcast: " + e.getMessage(), e);
            }
            long[] out = Arrays.copyOf(batch, batch.length + (a.length > 1 ? 1 : 0) + (b.length > 1 ? 1 : 0));
            int next = batch.length;
            if (a.length > 1) {
                out[next++] = m;
            }
            if (b.length > 1) {
                out[next] = n;
            }
            return new MatMulGeometry(m, k, n, batch, Broadcasting.strides(batchA, batch.length),
                    Broadcasting.strides(batchB, batch.length), out);
        }

        /** How many [m, n] matrices the output holds. */
        public long batchCount() {
            return Tensor.elementCount(batch);
        }

        /** Whether A's (or B's) matrices follow the output's one for one, or one matrix serves every batch. */
        public boolean simpleBatches() {
            return simple(aBatchStrides) && simple(bBatchStrides);
        }

        private boolean simple(long[] strides) {
            boolean none = Arrays.stream(strides).allMatch(s -> s == 0);
            return none || Arrays.equals(strides, Broadcasting.strides(batch, batch.length));
        }
    }

    /**
     * One Gemm: {@code Y[m, n] = alpha * op(A)[m, k] * op(B)[k, n] + beta * C}, with C (when present) broadcast to
     * [m, n] by the element strides {@code cRowStride}/{@code cColumnStride} (0 along a stretched dimension).
     */
    public record GemmGeometry(long m, long k, long n, boolean hasC, long cRowStride, long cColumnStride) {

        /** A Gemm node's attributes, read once. {@code broadcastC} is false only for Gemm 1 and 6 without {@code broadcast}. */
        public record Attributes(float alpha, float beta, boolean transA, boolean transB, boolean broadcastC) {
            public static Attributes of(Node node) {
                return new Attributes(node.floatAttribute("alpha", 1f), node.floatAttribute("beta", 1f),
                        node.intAttribute("transA", 0) != 0, node.intAttribute("transB", 0) != 0,
                        node.sinceVersion() >= 7 || node.intAttribute("broadcast", 0) != 0);
            }
        }

        /** The geometry for A, B and C (null when omitted) of these shapes. */
        public static GemmGeometry of(long[] a, long[] b, long[] c, Attributes attributes) {
            if (a.length != 2 || b.length != 2) {
                throw new IllegalArgumentException("Gemm: A and B must be 2-D, got shapes " + Arrays.toString(a)
                        + " and " + Arrays.toString(b));
            }
            boolean transA = attributes.transA();
            boolean transB = attributes.transB();
            long m = transA ? a[1] : a[0];
            long k = transA ? a[0] : a[1];
            long kb = transB ? b[1] : b[0];
            long n = transB ? b[0] : b[1];
            if (k != kb) {
                throw new IllegalArgumentException("Gemm: inner dimensions differ: op(A) is " + m + "x" + k
                        + " (A " + Arrays.toString(a) + ", transA=" + transA + ") but op(B) is " + kb + "x" + n
                        + " (B " + Arrays.toString(b) + ", transB=" + transB + ")");
            }
            if (c == null) {
                return new GemmGeometry(m, k, n, false, 0, 0);
            }
            long[] y = {m, n};
            if (!attributes.broadcastC() && !Arrays.equals(c, y)) {
                throw new IllegalArgumentException("Gemm: C is " + Arrays.toString(c) + " but without broadcast=1 it must be "
                        + Arrays.toString(y));
            }
            Broadcasting.requireUnidirectional(c, y, "Gemm: C");
            long[] strides = Broadcasting.strides(c, 2);
            return new GemmGeometry(m, k, n, true, strides[0], strides[1]);
        }

        public long[] outputShape() {
            return new long[] {m, n};
        }
    }
    /**
     * One Einsum ({@code "bij,bjk->bik"}, numpy's rules): every label of the equation with its size, the output's
     * labels first, then the summed ones; and per input, the element stride each label advances it by (0 where
     * the input lacks the label or broadcasts it; the sum of both strides for a label repeated in one input, which
     * reads a diagonal). {@code ...} stands for the same number of broadcast dimensions in every operand (right
     * aligned); without {@code ->} the output is the ellipsis then the labels used once, in alphabetical order.
     * Broadcast ({@code ...}) dimensions the output leaves out are summed, as numpy does.
     */
    public record EinsumGeometry(long[] labelSizes, int outputLabels, long[][] inputStrides, long[] outputShape) {
        /** Letters are labels 0..51; the ellipsis' dimensions get the labels after them. */
        private static final int ELLIPSIS = 52;

        public static EinsumGeometry of(String equation, long[][] inputShapes) {
            String compact = equation.replace(" ", "");
            int arrow = compact.indexOf("->");
            String[] terms = (arrow < 0 ? compact : compact.substring(0, arrow)).split(",", -1);
            if (terms.length != inputShapes.length) {
                throw new IllegalArgumentException("Einsum: '" + equation + "' has " + terms.length + " operand(s), the node "
                        + inputShapes.length);
            }
            int[][] inputLabels = new int[terms.length][];
            int ellipsisRank = 0;
            for (int i = 0; i < terms.length; i++) {
                int[] labels = labels(terms[i], equation);
                int explicit = (int) Arrays.stream(labels).filter(l -> l >= 0).count();
                int rank = inputShapes[i].length;
                boolean hasEllipsis = explicit < labels.length;
                if (hasEllipsis ? rank < explicit : rank != explicit) {
                    throw new IllegalArgumentException("Einsum: operand " + i + " '" + terms[i] + "' does not fit its shape "
                            + Arrays.toString(inputShapes[i]));
                }
                int e = rank - explicit;
                ellipsisRank = Math.max(ellipsisRank, e);
                inputLabels[i] = expand(labels, e, -1);
            }
            // expand(..., -1) leaves ellipsis dimensions numbered 0..e-1 as -2-k; right-align them to ellipsisRank now
            long[] sizes = new long[ELLIPSIS + ellipsisRank];
            Arrays.fill(sizes, -1);
            for (int i = 0; i < terms.length; i++) {
                int e = (int) Arrays.stream(inputLabels[i]).filter(l -> l < -1).count();
                for (int d = 0; d < inputLabels[i].length; d++) {
                    int l = inputLabels[i][d];
                    if (l < -1) {
                        l = ELLIPSIS + ellipsisRank - e + (-2 - l);
                        inputLabels[i][d] = l;
                    }
                    long size = inputShapes[i][d];
                    if (sizes[l] < 0 || sizes[l] == size) {
                        sizes[l] = size;
                    } else if (l >= ELLIPSIS && (sizes[l] == 1 || size == 1)) {
                        sizes[l] = Math.max(sizes[l], size);
                    } else {
                        throw new IllegalArgumentException("Einsum: label " + name(l) + " is " + sizes[l] + " in one place and "
                                + size + " in another (" + equation + " on " + Arrays.deepToString(inputShapes) + ")");
                    }
                }
            }
            List<Integer> output = new ArrayList<>();
            if (arrow >= 0) {
                for (int l : labels(compact.substring(arrow + 2), equation)) {
                    if (l >= 0) {
                        if (sizes[l] < 0) {
                            throw new IllegalArgumentException("Einsum: output label " + name(l) + " is in no operand of " + equation);
                        }
                        if (output.contains(l)) {
                            throw new IllegalArgumentException("Einsum: output label " + name(l) + " is repeated in " + equation);
                        }
                        output.add(l);
                    } else {
                        for (int k = 0; k < ellipsisRank; k++) {
                            output.add(ELLIPSIS + k);
                        }
                    }
                }
            } else {
                for (int k = 0; k < ellipsisRank; k++) {
                    output.add(ELLIPSIS + k);
                }
                int[] uses = new int[ELLIPSIS];
                for (int[] labels : inputLabels) {
                    for (int l : labels) {
                        if (l < ELLIPSIS) {
                            uses[l]++;
                        }
                    }
                }
                // alphabetical in ASCII order, as numpy: 'A'..'Z' (labels 26..51) before 'a'..'z' (0..25)
                for (int l = 26; l < ELLIPSIS; l++) {
                    if (uses[l] == 1) {
                        output.add(l);
                    }
                }
                for (int l = 0; l < 26; l++) {
                    if (uses[l] == 1) {
                        output.add(l);
                    }
                }
            }
            List<Integer> all = new ArrayList<>(output);
            for (int[] labels : inputLabels) {
                for (int l : labels) {
                    if (!all.contains(l)) {
                        all.add(l);
                    }
                }
            }
            long[] labelSizes = all.stream().mapToLong(l -> sizes[l]).toArray();
            long[][] strides = new long[terms.length][all.size()];
            for (int i = 0; i < terms.length; i++) {
                long stride = 1;
                for (int d = inputLabels[i].length - 1; d >= 0; d--) {
                    int l = inputLabels[i][d];
                    long size = inputShapes[i][d];
                    if (!(size == 1 && sizes[l] != 1)) {
                        strides[i][all.indexOf(l)] += stride;
                    }
                    stride = Math.multiplyExact(stride, size);
                }
            }
            return new EinsumGeometry(labelSizes, output.size(), strides, Arrays.copyOf(labelSizes, output.size()));
        }

        /** The term's labels, letters as 0..51 and the ellipsis as one -1. */
        private static int[] labels(String term, String equation) {
            List<Integer> labels = new ArrayList<>();
            boolean ellipsis = false;
            for (int c = 0; c < term.length(); c++) {
                char ch = term.charAt(c);
                if (ch >= 'a' && ch <= 'z') {
                    labels.add(ch - 'a');
                } else if (ch >= 'A' && ch <= 'Z') {
                    labels.add(26 + ch - 'A');
                } else if (term.startsWith("...", c) && !ellipsis) {
                    labels.add(-1);
                    ellipsis = true;
                    c += 2;
                } else {
                    throw new IllegalArgumentException("Einsum: '" + equation + "' is not an einsum equation (at '" + ch + "')");
                }
            }
            return labels.stream().mapToInt(Integer::intValue).toArray();
        }

        /** The labels with the ellipsis replaced by {@code e} dimensions numbered -2, -3, ... (outermost first). */
        private static int[] expand(int[] labels, int e, int ellipsis) {
            int[] out = new int[labels.length - (Arrays.stream(labels).anyMatch(l -> l == ellipsis) ? 1 : 0) + e];
            int at = 0;
            for (int l : labels) {
                if (l == ellipsis) {
                    for (int k = 0; k < e; k++) {
                        out[at++] = -2 - k;
                    }
                } else {
                    out[at++] = l;
                }
            }
            return out;
        }

        private static String name(int label) {
            return label < 26 ? String.valueOf((char) ('a' + label)) : label < ELLIPSIS ? String.valueOf((char) ('A' + label - 26))
                    : "...(" + (label - ELLIPSIS) + ")";
        }

        /** How many elements each output element sums. */
        public long summedCount() {
            long n = 1;
            for (int l = outputLabels; l < labelSizes.length; l++) {
                n = Math.multiplyExact(n, labelSizes[l]);
            }
            return n;
        }
    }
}
