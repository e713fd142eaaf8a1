package dev.javaep.cuda.kernel.elementwise;

import dev.javaep.cuda.driver.Nvrtc;
import dev.javaep.cuda.kernel.CudaKernelFactory;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.cuda.kernel.elementwise.ElementwiseNode.ShapeRule;
import dev.javaep.cuda.kernel.ptx.CudaKernel.BinaryOp;
import dev.javaep.cuda.kernel.ptx.CudaKernel.UnaryOp;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.ElementwiseOps;
import dev.javaep.spi.ops.ElementwiseOps.Activation;
import dev.javaep.spi.ops.KernelRows;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OnnxTypes;
import dev.javaep.spi.ops.OpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * JavaCuda's rows for {@link ElementwiseOps}, one per schema version. Add/Sub/Mul/Div/Relu/Sigmoid/Tanh on float32
 * keep the built-in PTX kernels (vectorised, no compiler needed); every other op and type runs the CUDA C template
 * of {@link ElementwiseSource}, whose rows decline where NVRTC is absent. The C expression of each op is here, beside
 * the row; JavaCpu's lane loops are its reference.
 */
public final class ElementwiseKernels {
    private static final ElementType F16 = ElementType.FLOAT16;
    private static final ElementType F32 = ElementType.FLOAT;
    private static final ElementType BOOL = ElementType.BOOL;

    /** The float types the template computes (in float32). */
    private static final Set<ElementType> FLOATS = Set.of(F16, F32);
    private static final Set<ElementType> INTEGERS = OnnxTypes.INTEGERS;
    private static final Set<ElementType> NUMBERS = OnnxTypes.union(FLOATS, INTEGERS);
    private static final Set<ElementType> CAST_TYPES = OnnxTypes.union(NUMBERS, Set.of(ElementType.DOUBLE, BOOL));

    private ElementwiseKernels() {}

    public static List<KernelTable.Row<CudaKernelFactory>> rows() {
        List<KernelTable.Row<CudaKernelFactory>> rows = new ArrayList<>();
        add(rows, ElementwiseOps.ADD, NUMBERS, node -> arithmetic(node, BinaryOp.ADD));
        add(rows, ElementwiseOps.SUB, NUMBERS, node -> arithmetic(node, BinaryOp.SUB));
        add(rows, ElementwiseOps.MUL, NUMBERS, node -> arithmetic(node, BinaryOp.MUL));
        add(rows, ElementwiseOps.DIV, NUMBERS, node -> arithmetic(node, BinaryOp.DIV));
        add(rows, ElementwiseOps.POW, Set.of(F16, F32, ElementType.INT32, ElementType.INT64), ElementwiseKernels::compiled);
        add(rows, ElementwiseOps.MOD, NUMBERS, ElementwiseKernels::compiled);
        // double: computed in double (NaN propagates, as numpy's minimum/maximum and ORT's CPU EP)
        add(rows, ElementwiseOps.MIN, OnnxTypes.union(NUMBERS, Set.of(ElementType.DOUBLE)), ElementwiseKernels::compiled);
        add(rows, ElementwiseOps.MAX, OnnxTypes.union(NUMBERS, Set.of(ElementType.DOUBLE)), ElementwiseKernels::compiled);
        add(rows, ElementwiseOps.SUM, FLOATS, ElementwiseKernels::compiled);
        add(rows, ElementwiseOps.MEAN, FLOATS, ElementwiseKernels::compiled);
        add(rows, ElementwiseOps.CLIP, NUMBERS, ElementwiseKernels::compiled);

        add(rows, ElementwiseOps.RELU, OnnxTypes.union(FLOATS, KernelRows.SIGNED_INTEGERS), node -> type(node) == F32
                ? device -> new ElementwiseUnaryNode(device, UnaryOp.RELU) : compiled(node));
        add(rows, ElementwiseOps.SIGMOID, FLOATS, node -> type(node) == F32
                ? device -> new ElementwiseUnaryNode(device, UnaryOp.SIGMOID) : compiled(node));
        add(rows, ElementwiseOps.TANH, FLOATS, node -> type(node) == F32
                ? device -> new ElementwiseUnaryNode(device, UnaryOp.TANH) : compiled(node));
        KernelRows.addMathRows(rows, FLOATS, ElementwiseKernels::compiled, ElementwiseKernels::compiled);
        add(rows, ElementwiseOps.WHERE, KernelRows.WORD_SIZED, ElementwiseKernels::compiled);
        KernelRows.addEach(rows, ElementwiseOps.CAST, "T1", CAST_TYPES, ElementwiseKernels::compiled);
        return List.copyOf(rows);
    }

    /** A node the template runs: declined without NVRTC (at GetCapability), else its plan waiting for a device. */
    private static CudaKernelFactory compiled(Node node) {
        if (!CudaKernelLibrary.compilesSources()) {
            throw new UnsupportedOperationException("JavaCuda compiles " + node.opType() + " on " + type(node)
                    + " with NVRTC, which is not here: " + Nvrtc.absenceReason());
        }
        ElementwiseNode.Plan plan = plan(node);
        return device -> new ElementwiseNode(device, plan);
    }

    /**
     * What the template makes of a node the rows accept (any op of this family, on the types the rows allow): the
     * specialisation's C expression, inputs and output. Needs no GPU and no NVRTC.
     */
    static ElementwiseNode.Plan plan(Node node) {
        ElementType t = type(node);
        return switch (node.opType()) {
            case "Add" -> binary(node, "(x0 + x1)");
            case "Sub" -> binary(node, "(x0 - x1)");
            case "Mul" -> binary(node, "(x0 * x1)");
            case "Div" -> binary(node, "(x0 / x1)");
            case "Pow" -> pow(node);
            case "Mod" -> {
                boolean fmod = ElementwiseOps.fmod(node, t); // fmod=0 on floats is declined here
                String result = FLOATS.contains(t) ? "fmodf(x0, x1)" : fmod ? "(x0 % x1)" : "pymod(x0, x1)";
                yield template(node, fmod ? "fmod" : "mod", new int[] {0, 1}, List.of(t, t), result, t, ShapeRule.MULTIDIRECTIONAL,
                        new float[0]);
            }
            case "Min" -> variadic(node, "vmin");
            case "Max" -> variadic(node, "vmax");
            case "Sum", "Mean" -> variadic(node, "+");
            case "Clip" -> clip(node);
            case "PRelu" -> template(node, "prelu", new int[] {0, 1}, List.of(t, t), "(x0 < 0 ? x0 * x1 : x0)", t, ShapeRule.PRELU,
                    new float[0]);
            case "Equal" -> binary(node, "(x0 == x1)");
            case "Less" -> binary(node, "(x0 < x1)");
            case "Greater" -> binary(node, "(x0 > x1)");
            case "LessOrEqual" -> binary(node, "(x0 <= x1)");
            case "GreaterOrEqual" -> binary(node, "(x0 >= x1)");
            case "And" -> binary(node, "(x0 && x1)");
            case "Or" -> binary(node, "(x0 || x1)");
            case "Xor" -> binary(node, "((x0 != 0) != (x1 != 0))");
            case "Where" -> where(node);
            case "Cast" -> cast(node);
            default -> unary(node);
        };
    }

    private static ElementType type(Node node) {
        return node.inputs().getFirst().elementType();
    }

    private static ElementType outputType(Node node) {
        return node.outputs().getFirst().elementType();
    }

    /** A kernel name part for an op: its type in lower case ("lessorequal"). */
    private static String name(Node node) {
        return node.opType().toLowerCase(java.util.Locale.ROOT);
    }

    private static ElementwiseNode.Plan template(Node node, String name, int[] inputs, List<ElementType> inputTypes,
                                                 String result, ElementType output, ShapeRule rule, float[] params) {
        List<String> loaders = inputTypes.stream().map(ElementwiseSource::load).toList();
        String fullName = name + "_" + ElementwiseSource.typeName(inputTypes.getLast()) + "_to_" + ElementwiseSource.typeName(output);
        ElementwiseSource.Spec spec = new ElementwiseSource.Spec(fullName, loaders, result, ElementwiseSource.store(output));
        return new ElementwiseNode.Plan(node.opType(), spec, inputs, inputTypes, output, rule, params);
    }

    /** Two inputs of T, multidirectional broadcasting, output T or bool. */
    private static ElementwiseNode.Plan binary(Node node, String result) {
        ElementType t = type(node);
        return template(node, name(node), new int[] {0, 1}, List.of(t, t), result, outputType(node), ShapeRule.MULTIDIRECTIONAL,
                new float[0]);
    }

    /** Add/Sub/Mul/Div: the PTX kernels on float32, the template on the other types. */
    private static CudaKernelFactory arithmetic(Node node, BinaryOp ptx) {
        return type(node) == F32 ? device -> new ElementwiseBinaryNode(device, ptx) : compiled(node);
    }

    private static ElementwiseNode.Plan pow(Node node) {
        ElementType base = type(node);
        ElementType exponent = node.inputs().get(1).elementType();
        if (!NUMBERS.contains(exponent)) {
            throw new UnsupportedOperationException("Pow with a " + exponent + " exponent is not implemented by JavaCuda");
        }
        // On doubles, as ONNX Runtime's std::pow and JavaCpu compute every type pair; integer results truncate.
        String pow = "pow((double) x0, (double) x1)";
        return template(node, "pow", new int[] {0, 1}, List.of(base, exponent), pow, base, ShapeRule.MULTIDIRECTIONAL, new float[0]);
    }

    /** Min/Max ({@code vmin}/{@code vmax} folded left) or Sum/Mean ({@code +}, Mean divided by the count). */
    private static ElementwiseNode.Plan variadic(Node node, String fold) {
        ElementType t = type(node);
        int count = node.inputs().size();
        if (count > ElementwiseSource.MAX_INPUTS) {
            throw new IllegalArgumentException(node.opType() + " of " + count + " inputs: JavaCuda's kernel takes at most "
                    + ElementwiseSource.MAX_INPUTS);
        }
        String result = "x0";
        for (int k = 1; k < count; k++) {
            result = fold.equals("+") ? "(" + result + " + x" + k + ")" : fold + "(" + result + ", x" + k + ")";
        }
        if (node.opType().equals("Mean")) {
            result = "(" + result + " / " + count + ".0f)";
        }
        int[] inputs = new int[count];
        for (int k = 0; k < count; k++) {
            inputs[k] = k;
        }
        return template(node, name(node) + count, inputs, java.util.Collections.nCopies(count, t), result, t,
                ShapeRule.MULTIDIRECTIONAL, new float[0]);
    }

    /** Clip-6: bounds in params; 11+: the present bound inputs (an omitted one does not clip). */
    private static ElementwiseNode.Plan clip(Node node) {
        ElementType t = type(node);
        if (ElementwiseOps.clipBoundsAreAttributes(node)) {
            return template(node, "clip6", new int[] {0}, List.of(t), "clip_hi(clip_lo(x0, params.v[0]), params.v[1])", t,
                    ShapeRule.CLIP, ElementwiseOps.clipBounds(node));
        }
        List<Integer> inputs = new ArrayList<>(List.of(0));
        String result = "x0";
        String name = "clip";
        for (int i = 1; i <= 2; i++) {
            if (node.input(i) != null) {
                result = (i == 1 ? "clip_lo(" : "clip_hi(") + result + ", x" + inputs.size() + ")";
                name += i == 1 ? "_lo" : "_hi";
                inputs.add(i);
            }
        }
        return template(node, name, inputs.stream().mapToInt(Integer::intValue).toArray(),
                java.util.Collections.nCopies(inputs.size(), t), result, t, ShapeRule.CLIP, new float[0]);
    }

    private static ElementwiseNode.Plan unary(Node node) {
        ElementType t = type(node);
        Activation a = Activation.of(node);
        boolean geluTanh = node.opType().equals("Gelu") && ElementwiseOps.geluTanh(node);
        String result = FLOATS.contains(t) ? floatExpression(node.opType(), geluTanh) : integerExpression(node.opType());
        return template(node, name(node) + (geluTanh ? "_tanh" : ""), new int[] {0}, List.of(t), result, t,
                ShapeRule.MULTIDIRECTIONAL, new float[] {a.alpha(), a.beta(), a.gamma()});
    }

    /** Activations whose formula is one expression of X alone: what a producer can apply in its epilogue. */
    private static final Set<String> FUSABLE_ACTIVATIONS = Set.of("Relu", "LeakyRelu", "Elu", "Selu", "Celu", "HardSigmoid",
            "HardSwish", "Gelu", "Softplus", "Softsign", "Mish", "Sigmoid", "Tanh", "Clip");

    /**
     * A float32/float16 activation as this family computes it, for a producer that applies it to its own output
     * (JavaCuda fuses Conv → activation in a compiled group).
     *
     * @param name       a kernel name part (letters, digits, underscores)
     * @param expression the C expression over the float {@code x0} and {@code params.v[0..7]}
     * @param params     the values of {@code params.v[]}
     * @param helpers    the C functions the expression may call ({@link ElementwiseSource#helpers()})
     */
    public record FusableActivation(String name, String expression, float[] params, String helpers) {}

    /**
     * {@code node} as a {@link FusableActivation}: one of {@link #FUSABLE_ACTIVATIONS} on float32 or float16, Clip
     * with bounds that are attributes or constants the model gives; empty for anything else.
     */
    public static java.util.Optional<FusableActivation> fusableActivation(Node node) {
        if (!node.isOnnxDomain() || !FUSABLE_ACTIVATIONS.contains(node.opType()) || node.inputs().isEmpty()
                || node.input(0) == null || !FLOATS.contains(type(node))) {
            return java.util.Optional.empty();
        }
        float[] params;
        String name = name(node);
        ElementwiseNode.Plan plan;
        if (node.opType().equals("Clip") && !ElementwiseOps.clipBoundsAreAttributes(node)) {
            params = new float[] {-Float.MAX_VALUE, Float.MAX_VALUE};
            for (int i = 1; i <= 2; i++) {
                if (node.input(i) == null) {
                    continue;
                }
                if (node.input(i).value() == null || node.input(i).value().elementCount() != 1) {
                    return java.util.Optional.empty(); // a bound computed at run time
                }
                dev.javaep.spi.TensorValue bound = node.input(i).value();
                params[i - 1] = bound.elementType() == F16
                        ? Float.float16ToFloat(bound.data().order(java.nio.ByteOrder.LITTLE_ENDIAN).getShort(0))
                        : bound.floats()[0];
            }
            // Clip-6's expression: the bounds as parameters
            plan = clip(new Node(node.id(), node.name(), "Clip", node.domain(), 6, List.of(node.input(0)), node.outputs(),
                    java.util.Map.of()));
        } else {
            plan = plan(node);
            params = plan.params();
        }
        return java.util.Optional.of(new FusableActivation(name, plan.spec().result(), params, ElementwiseSource.helpers()));
    }

    /** A unary op on a float working value {@code x0}; attributes in {@code params.v[0..2]} (alpha, beta, gamma). */
    static String floatExpression(String op, boolean geluTanh) {
        return switch (op) {
            case "Relu" -> "(x0 < 0.0f ? 0.0f : x0)";
            case "LeakyRelu" -> "(x0 >= 0.0f ? x0 : params.v[0] * x0)";
            case "Elu" -> "(x0 >= 0.0f ? x0 : params.v[0] * expm1f(x0))";
            case "Selu" -> "(x0 > 0.0f ? params.v[2] * x0 : params.v[2] * (params.v[0] * expf(x0) - params.v[0]))";
            case "Celu" -> "(vmax(0.0f, x0) + vmin(0.0f, params.v[0] * expm1f(x0 / params.v[0])))";
            case "HardSigmoid" -> "clip_hi(clip_lo(params.v[0] * x0 + params.v[1], 0.0f), 1.0f)";
            case "HardSwish" -> "(x0 * clip_hi(clip_lo(x0 / 6.0f + 0.5f, 0.0f), 1.0f))";
            case "Gelu" -> geluTanh ? "(0.5f * x0 * (1.0f + tanhf(0.7978845608028654f * (x0 + 0.044715f * x0 * x0 * x0))))"
                    : "(0.5f * x0 * (1.0f + erff(x0 * 0.7071067811865476f)))";
            case "Softplus" -> "softplus(x0)";
            case "Softsign" -> "(x0 / (1.0f + fabsf(x0)))";
            case "Mish" -> "(x0 * tanhf(softplus(x0)))";
            case "Sigmoid" -> "sigmoid(x0)";
            case "Tanh" -> "tanhf(x0)";
            case "Exp" -> "expf(x0)";
            case "Log" -> "logf(x0)";
            case "Sqrt" -> "sqrtf(x0)";
            case "Reciprocal" -> "(1.0f / x0)";
            case "Floor" -> "floorf(x0)";
            case "Ceil" -> "ceilf(x0)";
            case "Neg" -> "(-x0)";
            case "Abs" -> "fabsf(x0)";
            case "Round" -> "rintf(x0)";
            case "Sign" -> "sign(x0)";
            case "Erf" -> "erff(x0)";
            case "Sin" -> "sinf(x0)";
            case "Cos" -> "cosf(x0)";
            default -> throw new IllegalArgumentException("no float expression for " + op);
        };
    }

    /** A unary op on an integer working value {@code x0} ({@code long long}, or {@code unsigned long long} for uint64). */
    static String integerExpression(String op) {
        return switch (op) {
            case "Relu" -> "(x0 < 0 ? (i64) 0 : x0)";
            case "Neg" -> "(-x0)";
            case "Abs" -> "iabs(x0)";
            case "Sign" -> "sign(x0)";
            case "Not" -> "(x0 == 0)";
            default -> throw new IllegalArgumentException("no integer expression for " + op);
        };
    }

    /** Where moves X's or Y's bits by the condition. */
    private static ElementwiseNode.Plan where(Node node) {
        ElementType t = outputType(node);
        List<String> loaders = List.of(ElementwiseSource.load(BOOL), ElementwiseSource.bits(t), ElementwiseSource.bits(t));
        ElementwiseSource.Spec spec = new ElementwiseSource.Spec("where_" + t.byteSize() * 8, loaders, "(x0 ? x1 : x2)",
                ElementwiseSource.storeBits(t));
        return new ElementwiseNode.Plan("Where", spec, new int[] {0, 1, 2}, List.of(BOOL, t, t), t, ShapeRule.MULTIDIRECTIONAL,
                new float[0]);
    }

    /** Cast with the conversions of JavaCpu's CastKernel (C's: truncation toward zero, round to nearest, != 0 for bool). */
    private static ElementwiseNode.Plan cast(Node node) {
        ElementType from = type(node);
        ElementType to = ElementwiseOps.castTarget(node);
        if (!CAST_TYPES.contains(to)) {
            throw new UnsupportedOperationException("Cast to " + to + " is not implemented by JavaCuda");
        }
        boolean fromFloat = from == F16 || from == F32 || from == ElementType.DOUBLE;
        String result = switch (to) {
            case FLOAT, FLOAT16 -> "((float) x0)";
            case DOUBLE -> "((double) x0)";
            case BOOL -> "(x0 != 0)";
            case UINT64 -> fromFloat ? "to_u64((double) x0)" : "((u64) x0)";
            default -> "((i64) x0)";
        };
        return template(node, "cast", new int[] {0}, List.of(from), result, to, ShapeRule.MULTIDIRECTIONAL, new float[0]);
    }

    private static void add(List<KernelTable.Row<CudaKernelFactory>> rows, List<OpSchema> versions, Set<ElementType> types,
                            Function<Node, CudaKernelFactory> kernel) {
        KernelRows.addEach(rows, versions, "T", types, kernel);
    }
}
