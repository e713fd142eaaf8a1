package dev.javaep.spi.ops;

import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.BiConsumer;
import java.util.function.BiFunction;
import java.util.function.Function;

/**
 * How a backend writes its {@link KernelTable} rows: a backend names the element types it implements for an op once,
 * and each schema version's row takes those the version allows (ops widen their types from version to version, and a
 * row may not claim a type its schema does not allow). Also the rows of the elementwise ops whose types every backend
 * derives the same way from its float types ({@link #addMathRows}), and the normalisation and sampling rows, which
 * differ by backend only in what a node becomes ({@link #normalizationRows}, {@link #samplingRows}).
 */
public final class KernelRows {
    private KernelRows() {}

    /** The unary math ops ONNX defines on floats alone: one kernel shape (y = f(x)), an expression each. */
    private static final List<List<OpSchema>> FLOAT_MATH = List.of(ElementwiseOps.LEAKY_RELU, ElementwiseOps.ELU,
            ElementwiseOps.SELU, ElementwiseOps.CELU, ElementwiseOps.HARD_SIGMOID, ElementwiseOps.HARD_SWISH,
            ElementwiseOps.GELU, ElementwiseOps.SOFTPLUS, ElementwiseOps.SOFTSIGN, ElementwiseOps.MISH, ElementwiseOps.EXP,
            ElementwiseOps.LOG, ElementwiseOps.SQRT, ElementwiseOps.RECIPROCAL, ElementwiseOps.FLOOR, ElementwiseOps.CEIL,
            ElementwiseOps.ROUND, ElementwiseOps.ERF, ElementwiseOps.SIN, ElementwiseOps.COS);
    /** The ordering comparisons: numbers in, bool out (Equal also takes bool). */
    private static final List<List<OpSchema>> ORDER_COMPARISONS = List.of(ElementwiseOps.LESS, ElementwiseOps.GREATER,
            ElementwiseOps.LESS_OR_EQUAL, ElementwiseOps.GREATER_OR_EQUAL);
    /** And, Or, Xor: bool only. */
    private static final List<List<OpSchema>> LOGICAL = List.of(ElementwiseOps.AND, ElementwiseOps.OR, ElementwiseOps.XOR);

    /** The signed integers: what Relu and Neg allow besides floats. */
    public static final Set<ElementType> SIGNED_INTEGERS = Set.of(ElementType.INT8, ElementType.INT16, ElementType.INT32,
            ElementType.INT64);
    /** The types of 1, 2, 4 or 8 bytes: what a kernel moving whole machine words (Where's select) moves. */
    public static final Set<ElementType> WORD_SIZED = Set.copyOf(OnnxTypes.FIXED_SIZE.stream()
            .filter(t -> t.byteSize() == 1 || t.byteSize() == 2 || t.byteSize() == 4 || t.byteSize() == 8).toList());

    /** A row for {@code schema} with the types of {@code implemented} the schema allows for {@code parameter}. */
    public static <K> KernelTable.Row<K> row(OpSchema schema, String parameter, Set<ElementType> implemented,
                                             Function<Node, K> kernel) {
        EnumSet<ElementType> within = EnumSet.noneOf(ElementType.class);
        within.addAll(implemented);
        within.retainAll(schema.types().get(parameter));
        return new KernelTable.Row<>(schema, parameter, within, kernel);
    }

    /** {@link #mover(OpSchema, String, Function)} for the type parameter T. */
    public static <K> KernelTable.Row<K> mover(OpSchema schema, Function<Node, K> kernel) {
        return mover(schema, "T", kernel);
    }

    /** A row for every whole-byte type the schema allows for {@code parameter}: a kernel that only moves bytes. */
    public static <K> KernelTable.Row<K> mover(OpSchema schema, String parameter, Function<Node, K> kernel) {
        return row(schema, parameter, OnnxTypes.FIXED_SIZE, kernel);
    }

    /**
     * Declines a node whose type parameter {@code parameter}, one its row does not select on (GridSample's grid T2,
     * BatchNormalization's T1, T2 and U), is bound to a type outside {@code implemented}; {@code kernelTakes} says
     * what the backend's kernel takes instead.
     */
    public static void requireBound(OpSchema schema, Node node, String parameter, Set<ElementType> implemented,
                                    String kernelTakes) {
        ElementType type = schema.typeOf(node, parameter);
        if (type != null && !implemented.contains(type)) {
            throw new UnsupportedOperationException(schema.describe() + ": " + parameter + " is " + type + "; " + kernelTakes);
        }
    }

    /** {@link #row} for each version of an op. */
    public static <K> void addEach(List<KernelTable.Row<K>> rows, List<OpSchema> versions, String parameter,
                                   Set<ElementType> implemented, Function<Node, K> kernel) {
        for (OpSchema schema : versions) {
            rows.add(row(schema, parameter, implemented, kernel));
        }
    }

    /**
     * The elementwise ops whose types follow from a backend's {@code floats}: the float math ops (Exp, Erf, Gelu, ...)
     * on the floats, Neg on them and the signed integers, Abs and Sign on the numbers (floats and integers), Not on
     * bool, all made by {@code unary}; PRelu on the numbers, Equal on the numbers and bool, Less/Greater/LessOrEqual/
     * GreaterOrEqual on the numbers and And/Or/Xor on bool, made by {@code binary}.
     */
    public static <K> void addMathRows(List<KernelTable.Row<K>> rows, Set<ElementType> floats, Function<Node, K> unary,
                                       Function<Node, K> binary) {
        Set<ElementType> numbers = OnnxTypes.union(floats, OnnxTypes.INTEGERS);
        Set<ElementType> bool = Set.of(ElementType.BOOL);
        for (List<OpSchema> op : FLOAT_MATH) {
            addEach(rows, op, "T", floats, unary);
        }
        addEach(rows, ElementwiseOps.NEG, "T", OnnxTypes.union(floats, SIGNED_INTEGERS), unary);
        addEach(rows, ElementwiseOps.ABS, "T", numbers, unary);
        addEach(rows, ElementwiseOps.SIGN, "T", numbers, unary);
        addEach(rows, ElementwiseOps.NOT, "T", bool, unary);
        addEach(rows, ElementwiseOps.PRELU, "T", numbers, binary);
        addEach(rows, ElementwiseOps.EQUAL, "T", OnnxTypes.union(numbers, bool), binary);
        for (List<OpSchema> op : ORDER_COMPARISONS) {
            addEach(rows, op, "T", numbers, binary);
        }
        for (List<OpSchema> op : LOGICAL) {
            addEach(rows, op, "T", bool, binary);
        }
    }

    /**
     * A row per {@link NormalizationOps} schema on {@code types} (T): {@code check} first (the schema's other type
     * parameters, what the backend needs to run), then BatchNormalization's rule made into a kernel by
     * {@code batchNorm}, the row normalisations' by {@code rowNorm}.
     */
    public static <K> List<KernelTable.Row<K>> normalizationRows(Set<ElementType> types, BiConsumer<OpSchema, Node> check,
            Function<NormalizationOps.BatchNorm, K> batchNorm, Function<NormalizationOps.RowNormalization, K> rowNorm) {
        return NormalizationOps.SCHEMAS.stream().map(schema -> new KernelTable.Row<K>(schema, "T", types, node -> {
            check.accept(schema, node);
            return schema.opType().equals("BatchNormalization") ? batchNorm.apply(NormalizationOps.BatchNorm.of(node))
                    : rowNorm.apply(NormalizationOps.RowNormalization.of(node));
        })).toList();
    }

    /**
     * A row per {@link SamplingOps} schema: Resize's and Upsample's on {@code resizeTypes} (for their data's type
     * parameter), made by {@code resize} from the schema and where it keeps roi, scales and sizes; GridSample's on
     * {@code gridSampleTypes} (T1), made by {@code gridSample}.
     */
    public static <K> List<KernelTable.Row<K>> samplingRows(Set<ElementType> resizeTypes,
            BiFunction<OpSchema, SamplingOps.ResizeInputs, Function<Node, K>> resize, Set<ElementType> gridSampleTypes,
            Function<OpSchema, Function<Node, K>> gridSample) {
        return SamplingOps.SCHEMAS.stream().map(schema -> {
            if (schema.opType().equals("GridSample")) {
                return new KernelTable.Row<>(schema, "T1", gridSampleTypes, gridSample.apply(schema));
            }
            SamplingOps.ResizeInputs at = SamplingOps.ResizeInputs.of(schema);
            return new KernelTable.Row<>(schema, at.dataType(), resizeTypes, resize.apply(schema, at));
        }).toList();
    }
}
