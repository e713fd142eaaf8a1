package dev.javaep.spi.ops;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

/**
 * Elementwise ops: arithmetic with numpy broadcasting, unary math and activations, comparisons and logic,
 * Cast, Where, Clip, variadic Min/Max/Sum/Mean. Backends: {@code dev.javaep.cpu.kernel.elementwise} and
 * {@code dev.javaep.cuda.kernel.elementwise}.
 *
 * <p>Each op is the list of its schema versions from opset 6 or 7 (or the op's first) to the newest ONNX
 * Runtime 1.29 resolves nodes to, split where ONNX changed the op's type constraints, attributes or meaning
 * (facts from ONNX's Changelog.md). Every version but the last ends where the next begins; the last covers only
 * its own {@code since_version}, so an op ONNX revises later is declined until someone reads the new version.
 * Below the schemas: the attribute and shape rules every backend applies in the same words.
 */
public final class ElementwiseOps {
    private ElementwiseOps() {}

    /**
     * The inputs a variadic schema (Min, Max, Sum, Mean) lists: ONNX allows any number, the schema stops here
     * (a node with more is declined for arity; no model we know comes near).
     */
    public static final int MAX_VARIADIC_INPUTS = 64;

    private static final ElementType F16 = ElementType.FLOAT16;
    private static final ElementType F32 = ElementType.FLOAT;
    private static final ElementType F64 = ElementType.DOUBLE;
    private static final ElementType BF16 = ElementType.BFLOAT16;
    private static final ElementType BOOL = ElementType.BOOL;

    /** float16, float, double: the float types before bfloat16 joined most ops (opset 13, 16 or 22). */
    private static final Set<ElementType> FLOAT3 = Set.of(F16, F32, F64);
    /** Every integer and float type but bfloat16. */
    private static final Set<ElementType> NUMERIC_NO_BF16 = OnnxTypes.union(FLOAT3, OnnxTypes.INTEGERS);
    private static final Set<ElementType> SIGNED_INTEGERS = Set.of(ElementType.INT8, ElementType.INT16,
            ElementType.INT32, ElementType.INT64);
    /** Add-7's "high-precision numeric" types. */
    private static final Set<ElementType> ARITHMETIC_7 = OnnxTypes.union(FLOAT3, Set.of(ElementType.UINT32,
            ElementType.UINT64, ElementType.INT32, ElementType.INT64));
    private static final Set<ElementType> BOOLS = Set.of(BOOL);
    /** Cast's types from opset 6: numbers and bool (strings join at 9, bfloat16 at 13, float8 at 19, ...). */
    private static final Set<ElementType> CAST_6 = OnnxTypes.union(NUMERIC_NO_BF16, BOOLS);
    private static final Set<ElementType> STRING = Set.of(ElementType.STRING);
    private static final Set<ElementType> FLOAT8 = Set.of(ElementType.FLOAT8E4M3FN, ElementType.FLOAT8E4M3FNUZ,
            ElementType.FLOAT8E5M2, ElementType.FLOAT8E5M2FNUZ);
    private static final Set<ElementType> INT4 = Set.of(ElementType.INT4, ElementType.UINT4);
    /** Where-9's "all tensor types". */
    private static final Set<ElementType> WHERE_9 = OnnxTypes.union(NUMERIC_NO_BF16, BOOLS, STRING,
            Set.of(ElementType.COMPLEX64, ElementType.COMPLEX128));

    private static final Map<String, Class<? extends Attribute>> NONE = Map.of();
    private static final Map<String, Class<? extends Attribute>> ALPHA = Map.of("alpha", Attribute.FloatValue.class);

    // ---- arithmetic ----
    public static final List<OpSchema> ADD = arithmetic("Add");
    public static final List<OpSchema> SUB = arithmetic("Sub");
    public static final List<OpSchema> MUL = arithmetic("Mul");
    public static final List<OpSchema> DIV = arithmetic("Div");
    /** Pow-7: base and exponent of one float type; from 12 the exponent has its own type T1. */
    public static final List<OpSchema> POW = versions(
            binary("Pow", 7, FLOAT3),
            pow(12, Set.of(ElementType.INT32, ElementType.INT64, F16, F32, F64), NUMERIC_NO_BF16),
            pow(13, Set.of(ElementType.INT32, ElementType.INT64, F16, F32, F64, BF16), NUMERIC_NO_BF16),
            pow(15, Set.of(ElementType.INT32, ElementType.INT64, F16, F32, F64, BF16), OnnxTypes.NUMERIC));
    /** Mod: integer (Python) or C fmod semantics by the {@code fmod} attribute; see {@link #fmod}. */
    public static final List<OpSchema> MOD = versions(
            schema("Mod", 10, 2, List.of("T", "T"), List.of("T"), Map.of("fmod", Attribute.IntValue.class), NUMERIC_NO_BF16),
            schema("Mod", 13, 2, List.of("T", "T"), List.of("T"), Map.of("fmod", Attribute.IntValue.class), OnnxTypes.NUMERIC));

    // ---- variadic with multidirectional broadcasting (from 8) ----
    public static final List<OpSchema> MIN = versions(variadic("Min", 8, FLOAT3), variadic("Min", 12, NUMERIC_NO_BF16),
            variadic("Min", 13, OnnxTypes.NUMERIC));
    public static final List<OpSchema> MAX = versions(variadic("Max", 8, FLOAT3), variadic("Max", 12, NUMERIC_NO_BF16),
            variadic("Max", 13, OnnxTypes.NUMERIC));
    public static final List<OpSchema> SUM = versions(variadic("Sum", 8, FLOAT3), variadic("Sum", 13, OnnxTypes.FLOATS));
    public static final List<OpSchema> MEAN = versions(variadic("Mean", 8, FLOAT3), variadic("Mean", 13, OnnxTypes.FLOATS));

    /** Clip-6 takes min and max as attributes; from 11 they are optional scalar inputs ({@link #clipBounds}). */
    public static final List<OpSchema> CLIP = versions(
            unary("Clip", 6, FLOAT3, Map.of("min", Attribute.FloatValue.class, "max", Attribute.FloatValue.class)),
            schema("Clip", 11, 1, List.of("T", "T", "T"), List.of("T"), NONE, FLOAT3),
            schema("Clip", 12, 1, List.of("T", "T", "T"), List.of("T"), NONE, NUMERIC_NO_BF16),
            schema("Clip", 13, 1, List.of("T", "T", "T"), List.of("T"), NONE, OnnxTypes.NUMERIC));

    // ---- activations ----
    public static final List<OpSchema> RELU = versions(unary("Relu", 6, FLOAT3), unary("Relu", 13, OnnxTypes.FLOATS),
            unary("Relu", 14, OnnxTypes.union(OnnxTypes.FLOATS, SIGNED_INTEGERS)));
    public static final List<OpSchema> LEAKY_RELU = versions(unary("LeakyRelu", 6, FLOAT3, ALPHA),
            unary("LeakyRelu", 16, OnnxTypes.FLOATS, ALPHA));
    /** PRelu from 7: the slope broadcasts unidirectionally to X ({@link #preluShape}). */
    public static final List<OpSchema> PRELU = versions(binary("PRelu", 7, FLOAT3),
            binary("PRelu", 9, OnnxTypes.union(FLOAT3, Set.of(ElementType.UINT32, ElementType.UINT64, ElementType.INT32,
                    ElementType.INT64))),
            binary("PRelu", 16, OnnxTypes.union(OnnxTypes.FLOATS, Set.of(ElementType.UINT32, ElementType.UINT64,
                    ElementType.INT32, ElementType.INT64))));
    public static final List<OpSchema> ELU = versions(unary("Elu", 6, FLOAT3, ALPHA), unary("Elu", 22, OnnxTypes.FLOATS, ALPHA));
    public static final List<OpSchema> SELU = versions(
            unary("Selu", 6, FLOAT3, Map.of("alpha", Attribute.FloatValue.class, "gamma", Attribute.FloatValue.class)),
            unary("Selu", 22, OnnxTypes.FLOATS, Map.of("alpha", Attribute.FloatValue.class, "gamma", Attribute.FloatValue.class)));
    /** Celu-12 is float32 only (Celu-28 widens it; ONNX Runtime 1.29 does not know it). */
    public static final List<OpSchema> CELU = versions(unary("Celu", 12, Set.of(F32), ALPHA));
    public static final List<OpSchema> HARD_SIGMOID = versions(
            unary("HardSigmoid", 6, FLOAT3, Map.of("alpha", Attribute.FloatValue.class, "beta", Attribute.FloatValue.class)),
            unary("HardSigmoid", 22, OnnxTypes.FLOATS, Map.of("alpha", Attribute.FloatValue.class, "beta", Attribute.FloatValue.class)));
    public static final List<OpSchema> HARD_SWISH = versions(unary("HardSwish", 14, FLOAT3), unary("HardSwish", 22, OnnxTypes.FLOATS));
    /** Gelu-20: {@code approximate} is "none" (erf) or "tanh" ({@link #geluTanh}). */
    public static final List<OpSchema> GELU = versions(
            unary("Gelu", 20, OnnxTypes.FLOATS, Map.of("approximate", Attribute.StringValue.class)));
    public static final List<OpSchema> SOFTPLUS = versions(unary("Softplus", 1, FLOAT3), unary("Softplus", 22, OnnxTypes.FLOATS));
    public static final List<OpSchema> SOFTSIGN = versions(unary("Softsign", 1, FLOAT3), unary("Softsign", 22, OnnxTypes.FLOATS));
    public static final List<OpSchema> MISH = versions(unary("Mish", 18, FLOAT3), unary("Mish", 22, OnnxTypes.FLOATS));
    public static final List<OpSchema> SIGMOID = floatMath("Sigmoid");
    public static final List<OpSchema> TANH = floatMath("Tanh");

    // ---- unary math ----
    public static final List<OpSchema> EXP = floatMath("Exp");
    public static final List<OpSchema> LOG = floatMath("Log");
    public static final List<OpSchema> SQRT = floatMath("Sqrt");
    public static final List<OpSchema> RECIPROCAL = floatMath("Reciprocal");
    public static final List<OpSchema> FLOOR = floatMath("Floor");
    public static final List<OpSchema> CEIL = floatMath("Ceil");
    public static final List<OpSchema> NEG = versions(unary("Neg", 6, OnnxTypes.union(FLOAT3, SIGNED_INTEGERS)),
            unary("Neg", 13, OnnxTypes.union(OnnxTypes.FLOATS, SIGNED_INTEGERS)));
    public static final List<OpSchema> ABS = versions(unary("Abs", 6, NUMERIC_NO_BF16), unary("Abs", 13, OnnxTypes.NUMERIC));
    /** Round: half to even. */
    public static final List<OpSchema> ROUND = versions(unary("Round", 11, FLOAT3), unary("Round", 22, OnnxTypes.FLOATS));
    public static final List<OpSchema> SIGN = versions(unary("Sign", 9, NUMERIC_NO_BF16), unary("Sign", 13, OnnxTypes.NUMERIC));
    /** Erf-9 allows every numeric type; 13 narrows it to floats. */
    public static final List<OpSchema> ERF = versions(unary("Erf", 9, NUMERIC_NO_BF16), unary("Erf", 13, OnnxTypes.FLOATS));
    public static final List<OpSchema> SIN = versions(unary("Sin", 7, FLOAT3), unary("Sin", 22, OnnxTypes.FLOATS));
    public static final List<OpSchema> COS = versions(unary("Cos", 7, FLOAT3), unary("Cos", 22, OnnxTypes.FLOATS));

    // ---- comparisons (bool output) and logic ----
    public static final List<OpSchema> EQUAL = versions(compare("Equal", 7, Set.of(BOOL, ElementType.INT32, ElementType.INT64)),
            compare("Equal", 11, OnnxTypes.union(NUMERIC_NO_BF16, BOOLS)),
            compare("Equal", 13, OnnxTypes.union(OnnxTypes.NUMERIC, BOOLS)),
            compare("Equal", 19, OnnxTypes.union(OnnxTypes.NUMERIC, BOOLS, STRING)));
    public static final List<OpSchema> LESS = versions(compare("Less", 7, FLOAT3), compare("Less", 9, NUMERIC_NO_BF16),
            compare("Less", 13, OnnxTypes.NUMERIC));
    public static final List<OpSchema> GREATER = versions(compare("Greater", 7, FLOAT3), compare("Greater", 9, NUMERIC_NO_BF16),
            compare("Greater", 13, OnnxTypes.NUMERIC));
    public static final List<OpSchema> LESS_OR_EQUAL = versions(compare("LessOrEqual", 12, NUMERIC_NO_BF16),
            compare("LessOrEqual", 16, OnnxTypes.NUMERIC));
    public static final List<OpSchema> GREATER_OR_EQUAL = versions(compare("GreaterOrEqual", 12, NUMERIC_NO_BF16),
            compare("GreaterOrEqual", 16, OnnxTypes.NUMERIC));
    public static final List<OpSchema> NOT = versions(unary("Not", 1, BOOLS));
    public static final List<OpSchema> AND = versions(compare("And", 7, BOOLS));
    public static final List<OpSchema> OR = versions(compare("Or", 7, BOOLS));
    public static final List<OpSchema> XOR = versions(compare("Xor", 7, BOOLS));

    /** Where(condition B, X T, Y T) with multidirectional broadcasting of all three. */
    public static final List<OpSchema> WHERE = versions(where(9, WHERE_9), where(16, OnnxTypes.union(WHERE_9, Set.of(BF16))));

    /**
     * Cast(T1) → T2 named by the {@code to} attribute ({@link #castTarget}). {@code saturate} (19+) only
     * changes float8 results and {@code round_mode} (24+) only float8e8m0 ones.
     */
    public static final List<OpSchema> CAST = versions(
            cast(6, CAST_6, Map.of("to", Attribute.IntValue.class)),
            cast(9, OnnxTypes.union(CAST_6, STRING), Map.of("to", Attribute.IntValue.class)),
            cast(13, OnnxTypes.union(CAST_6, STRING, Set.of(BF16)), Map.of("to", Attribute.IntValue.class)),
            cast(19, OnnxTypes.union(CAST_6, STRING, Set.of(BF16), FLOAT8),
                    Map.of("to", Attribute.IntValue.class, "saturate", Attribute.IntValue.class)),
            cast(21, OnnxTypes.union(CAST_6, STRING, Set.of(BF16), FLOAT8, INT4),
                    Map.of("to", Attribute.IntValue.class, "saturate", Attribute.IntValue.class)),
            cast(23, OnnxTypes.union(CAST_6, STRING, Set.of(BF16), FLOAT8, INT4, Set.of(ElementType.FLOAT4E2M1)),
                    Map.of("to", Attribute.IntValue.class, "saturate", Attribute.IntValue.class)),
            // 24 adds float8e8m0 and 25 int2/uint2, element types javaep's ElementType does not name yet
            cast(24, OnnxTypes.union(CAST_6, STRING, Set.of(BF16), FLOAT8, INT4, Set.of(ElementType.FLOAT4E2M1)),
                    Map.of("to", Attribute.IntValue.class, "saturate", Attribute.IntValue.class,
                            "round_mode", Attribute.StringValue.class)),
            cast(25, OnnxTypes.union(CAST_6, STRING, Set.of(BF16), FLOAT8, INT4, Set.of(ElementType.FLOAT4E2M1)),
                    Map.of("to", Attribute.IntValue.class, "saturate", Attribute.IntValue.class,
                            "round_mode", Attribute.StringValue.class)));

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = Stream.of(ADD, SUB, MUL, DIV, POW, MOD, MIN, MAX, SUM, MEAN, CLIP,
                    RELU, LEAKY_RELU, PRELU, ELU, SELU, CELU, HARD_SIGMOID, HARD_SWISH, GELU, SOFTPLUS, SOFTSIGN, MISH,
                    SIGMOID, TANH, EXP, LOG, SQRT, RECIPROCAL, FLOOR, CEIL, NEG, ABS, ROUND, SIGN, ERF, SIN, COS,
                    EQUAL, LESS, GREATER, LESS_OR_EQUAL, GREATER_OR_EQUAL, NOT, AND, OR, XOR, WHERE, CAST)
            .flatMap(List::stream).toList();

    // ================= shared attribute and shape rules =================

    /**
     * An activation's float attributes with the op's defaults: LeakyRelu (alpha 0.01), Elu and Celu (alpha 1),
     * Selu (alpha ≈ 1.6733, gamma ≈ 1.0507), HardSigmoid (alpha 0.2, beta 0.5), HardSwish (HardSigmoid with
     * alpha 1/6, beta 0.5, not attributes). Other ops get zeros.
     */
    public record Activation(float alpha, float beta, float gamma) {
        public static final float SELU_ALPHA = 1.67326319217681884765625f;
        public static final float SELU_GAMMA = 1.05070102214813232421875f;

        public static Activation of(Node node) {
            return switch (node.opType()) {
                case "LeakyRelu" -> new Activation(node.floatAttribute("alpha", 0.01f), 0, 0);
                case "Elu" -> new Activation(node.floatAttribute("alpha", 1f), 0, 0);
                case "Celu" -> {
                    float alpha = node.floatAttribute("alpha", 1f);
                    if (alpha == 0) {
                        throw new IllegalArgumentException("Celu: alpha must not be 0 (the formula divides by it)");
                    }
                    yield new Activation(alpha, 0, 0);
                }
                case "Selu" -> new Activation(node.floatAttribute("alpha", SELU_ALPHA), 0, node.floatAttribute("gamma", SELU_GAMMA));
                case "HardSigmoid" -> new Activation(node.floatAttribute("alpha", 0.2f), node.floatAttribute("beta", 0.5f), 0);
                case "HardSwish" -> new Activation(1f / 6, 0.5f, 0);
                default -> new Activation(0, 0, 0);
            };
        }
    }

    /** Gelu's {@code approximate}: false for "none" (the default, with erf), true for "tanh"; anything else is malformed. */
    public static boolean geluTanh(Node node) {
        return OnnxOps.twoValued(node, "approximate", "none", "tanh");
    }

    /**
     * Mod's {@code fmod} for a node of element type {@code type}: true for C's fmod (the result has the dividend's
     * sign), false for Python's % (the divisor's sign). ONNX defines fmod=0 for integers only.
     */
    public static boolean fmod(Node node, ElementType type) {
        long fmod = node.intAttribute("fmod", 0);
        if (fmod != 0 && fmod != 1) {
            throw new IllegalArgumentException("Mod: fmod is " + fmod + ", ONNX allows 0 and 1");
        }
        if (fmod == 0 && (type == F16 || type == F32 || type == F64 || type == BF16)) {
            throw new IllegalArgumentException("Mod: fmod=0 (integer modulo) on " + type + "; ONNX requires fmod=1 for floats");
        }
        return fmod == 1;
    }

    /** Cast's target type: the {@code to} attribute, which must name the node's output type. */
    public static ElementType castTarget(Node node) {
        long to = node.intAttribute("to", -1);
        if (to < 0) {
            throw new IllegalArgumentException("Cast: the required attribute 'to' is missing");
        }
        ElementType target;
        try {
            target = ElementType.fromOnnx(Math.toIntExact(to));
        } catch (IllegalArgumentException | ArithmeticException e) {
            throw new IllegalArgumentException("Cast: to=" + to + " is not an element type javaep knows");
        }
        ElementType output = node.outputs().getFirst().elementType();
        if (target != output) {
            throw new IllegalArgumentException("Cast: to=" + target + " but the output is " + output);
        }
        return target;
    }

    /** Clip-6's bounds from its attributes (defaults: the float range, as ONNX Runtime takes them). */
    public static float[] clipBounds(Node node) {
        return new float[] {node.floatAttribute("min", -Float.MAX_VALUE), node.floatAttribute("max", Float.MAX_VALUE)};
    }

    /** Whether this Clip node takes its bounds from attributes (Clip-6) rather than inputs (11+). */
    public static boolean clipBoundsAreAttributes(Node node) {
        return node.sinceVersion() < 11;
    }

    /** Clip-11+'s min or max input shape: absent (null) or one element (ONNX: "must be a scalar"). */
    public static void requireClipBound(long[] shape, String which) {
        if (shape != null && Arrays.stream(shape).reduce(1, Math::multiplyExact) != 1) {
            throw new IllegalArgumentException("Clip: " + which + " must be a scalar, it has shape " + Arrays.toString(shape));
        }
    }

    /** The shape that all {@code shapes} broadcast to (multidirectional, numpy); null entries (omitted inputs) are skipped. */
    public static long[] broadcastShape(long[]... shapes) {
        long[] out = new long[0];
        for (long[] shape : shapes) {
            if (shape != null) {
                out = Broadcasting.multidirectional(out, shape);
            }
        }
        return out;
    }

    /** PRelu's output shape: X's, after checking the slope broadcasts to X unidirectionally. */
    public static long[] preluShape(long[] x, long[] slope) {
        Broadcasting.requireUnidirectional(slope, x, "PRelu: slope");
        return x.clone();
    }

    // ================= schema construction =================

    /** Links versions: each one ends where the next begins; the last covers only its own since version. */
    private static List<OpSchema> versions(OpSchema... byVersion) {
        List<OpSchema> linked = new ArrayList<>();
        for (int i = 0; i < byVersion.length; i++) {
            OpSchema s = byVersion[i];
            int last = i + 1 < byVersion.length ? byVersion[i + 1].since() - 1 : s.since();
            linked.add(new OpSchema(s.domain(), s.opType(), s.since(), last, s.minInputs(), s.inputs(), s.outputs(),
                    s.attributes(), s.types()));
        }
        return List.copyOf(linked);
    }

    private static OpSchema schema(String op, int since, int minInputs, List<String> inputs, List<String> outputs,
                                   Map<String, Class<? extends Attribute>> attributes, Set<ElementType> t) {
        return new OpSchema("", op, since, since, minInputs, inputs, outputs, attributes, Map.of("T", t));
    }

    private static OpSchema unary(String op, int since, Set<ElementType> t) {
        return unary(op, since, t, NONE);
    }

    private static OpSchema unary(String op, int since, Set<ElementType> t, Map<String, Class<? extends Attribute>> attributes) {
        return schema(op, since, 1, List.of("T"), List.of("T"), attributes, t);
    }

    private static OpSchema binary(String op, int since, Set<ElementType> t) {
        return schema(op, since, 2, List.of("T", "T"), List.of("T"), NONE, t);
    }

    /** Add, Sub, Mul, Div: 7 (numpy broadcasting), 13 (bfloat16), 14 (8- and 16-bit integers). */
    private static List<OpSchema> arithmetic(String op) {
        return versions(binary(op, 7, ARITHMETIC_7), binary(op, 13, OnnxTypes.union(ARITHMETIC_7, Set.of(BF16))),
                binary(op, 14, OnnxTypes.NUMERIC));
    }

    /** The float-only unary ops that changed at 13 (bfloat16) only. */
    private static List<OpSchema> floatMath(String op) {
        return versions(unary(op, 6, FLOAT3), unary(op, 13, OnnxTypes.FLOATS));
    }

    private static OpSchema pow(int since, Set<ElementType> base, Set<ElementType> exponent) {
        return new OpSchema("", "Pow", since, since, 2, List.of("T", "T1"), List.of("T"), NONE,
                Map.of("T", base, "T1", exponent));
    }

    private static OpSchema variadic(String op, int since, Set<ElementType> t) {
        return schema(op, since, 1, Collections.nCopies(MAX_VARIADIC_INPUTS, "T"), List.of("T"), NONE, t);
    }

    /** Two inputs of T, a bool output: comparisons (and And/Or/Xor, whose T is bool). */
    private static OpSchema compare(String op, int since, Set<ElementType> t) {
        return new OpSchema("", op, since, since, 2, List.of("T", "T"), List.of("T1"), NONE, Map.of("T", t, "T1", BOOLS));
    }

    private static OpSchema where(int since, Set<ElementType> t) {
        return new OpSchema("", "Where", since, since, 3, List.of("B", "T", "T"), List.of("T"), NONE,
                Map.of("B", BOOLS, "T", t));
    }

    private static OpSchema cast(int since, Set<ElementType> types, Map<String, Class<? extends Attribute>> attributes) {
        return new OpSchema("", "Cast", since, since, 1, List.of("T1"), List.of("T2"), attributes,
                Map.of("T1", types, "T2", types));
    }
}
