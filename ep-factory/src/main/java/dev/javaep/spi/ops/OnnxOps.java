package dev.javaep.spi.ops;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The ONNX ops javaep's EPs implement, each described once per range of opset versions whose meaning is the
 * same (facts from the ONNX operator spec; a version is split where arity, attributes or semantics change,
 * e.g. Gemm's C became optional in 11, Softmax stopped coercing to 2-D in 13). Backends list which of these
 * they run and for which types in their {@link KernelTable}.
 *
 * <p>To add an op: its schema here (one constant per version range), then one row per backend that
 * implements it (JavaCpu: {@code dev.javaep.cpu.kernel.CpuKernels}; JavaCuda: {@code dev.javaep.cuda.kernel.CudaOps}).
 */
public final class OnnxOps {
    private OnnxOps() {}

    private static final Set<ElementType> FLOATS = EnumSet.of(ElementType.FLOAT16, ElementType.FLOAT, ElementType.DOUBLE,
            ElementType.BFLOAT16);
    /** Add/Sub/Mul/Div-14's T: every numeric type but the 4-bit and 8-bit float ones. */
    private static final Set<ElementType> NUMERIC = EnumSet.of(ElementType.UINT8, ElementType.UINT16, ElementType.UINT32,
            ElementType.UINT64, ElementType.INT8, ElementType.INT16, ElementType.INT32, ElementType.INT64,
            ElementType.FLOAT16, ElementType.FLOAT, ElementType.DOUBLE, ElementType.BFLOAT16);
    private static final Set<ElementType> MATMUL_TYPES = EnumSet.of(ElementType.FLOAT16, ElementType.FLOAT,
            ElementType.DOUBLE, ElementType.UINT32, ElementType.UINT64, ElementType.INT32, ElementType.INT64,
            ElementType.BFLOAT16);
    private static final Set<ElementType> RELU_TYPES = EnumSet.of(ElementType.FLOAT16, ElementType.FLOAT,
            ElementType.DOUBLE, ElementType.BFLOAT16, ElementType.INT8, ElementType.INT16, ElementType.INT32,
            ElementType.INT64);
    /** Identity's V: every tensor element type. */
    private static final Set<ElementType> ANY = EnumSet.copyOf(Arrays.stream(ElementType.values())
            .filter(t -> t != ElementType.UNDEFINED).toList());

    private static OpSchema elementwiseBinary(String op) {
        return new OpSchema("", op, 7, 14, 2, List.of("T", "T"), List.of("T"), Map.of(), Map.of("T", NUMERIC));
    }

    private static OpSchema activation(String op, int last, Set<ElementType> types) {
        return new OpSchema("", op, 6, last, 1, List.of("T"), List.of("T"), Map.of(), Map.of("T", types));
    }

    private static final Map<String, Class<? extends Attribute>> GEMM_ATTRIBUTES = Map.of(
            "alpha", Attribute.FloatValue.class, "beta", Attribute.FloatValue.class,
            "transA", Attribute.IntValue.class, "transB", Attribute.IntValue.class);

    /** Add, Sub, Mul, Div from 7 (numpy broadcasting, no attributes) to 14. */
    public static final OpSchema ADD = elementwiseBinary("Add");
    public static final OpSchema SUB = elementwiseBinary("Sub");
    public static final OpSchema MUL = elementwiseBinary("Mul");
    public static final OpSchema DIV = elementwiseBinary("Div");
    public static final OpSchema RELU = activation("Relu", 14, RELU_TYPES);
    public static final OpSchema SIGMOID = activation("Sigmoid", 13, FLOATS);
    public static final OpSchema TANH = activation("Tanh", 13, FLOATS);
    public static final OpSchema IDENTITY = new OpSchema("", "Identity", 1, 25, 1, List.of("V"), List.of("V"), Map.of(),
            Map.of("V", ANY));
    public static final OpSchema MATMUL = new OpSchema("", "MatMul", 1, 13, 2, List.of("T", "T"), List.of("T"), Map.of(),
            Map.of("T", MATMUL_TYPES));
    /** Gemm 7..10: C is required. */
    public static final OpSchema GEMM_7 = new OpSchema("", "Gemm", 7, 10, 3, List.of("T", "T", "T"), List.of("T"),
            GEMM_ATTRIBUTES, Map.of("T", MATMUL_TYPES));
    /** Gemm 11..13: C is optional. */
    public static final OpSchema GEMM_11 = new OpSchema("", "Gemm", 11, 13, 2, List.of("T", "T", "T"), List.of("T"),
            GEMM_ATTRIBUTES, Map.of("T", MATMUL_TYPES));
    /** Softmax 1..12: the input is coerced to 2-D at {@code axis} (default 1). */
    public static final OpSchema SOFTMAX_1 = new OpSchema("", "Softmax", 1, 12, 1, List.of("T"), List.of("T"),
            Map.of("axis", Attribute.IntValue.class), Map.of("T", FLOATS));
    /** Softmax 13: along the one dimension {@code axis} (default -1). */
    public static final OpSchema SOFTMAX_13 = new OpSchema("", "Softmax", 13, 13, 1, List.of("T"), List.of("T"),
            Map.of("axis", Attribute.IntValue.class), Map.of("T", FLOATS));

    /** Every schema above, for tables and docs. */
    public static List<OpSchema> all() {
        return List.of(ADD, SUB, MUL, DIV, RELU, SIGMOID, TANH, IDENTITY, MATMUL, GEMM_7, GEMM_11, SOFTMAX_1, SOFTMAX_13);
    }
}
