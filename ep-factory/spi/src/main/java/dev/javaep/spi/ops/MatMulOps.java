package dev.javaep.spi.ops;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** MatMul (with batch broadcasting) and Gemm. Backends: {@code dev.javaep.cpu.kernel.matmul}, {@code dev.javaep.cuda.kernel.matmul}. */
public final class MatMulOps {
    private MatMulOps() {}

    private static final Set<ElementType> MATMUL_TYPES = Set.of(ElementType.FLOAT16, ElementType.FLOAT,
            ElementType.DOUBLE, ElementType.UINT32, ElementType.UINT64, ElementType.INT32, ElementType.INT64,
            ElementType.BFLOAT16);

    private static final Map<String, Class<? extends Attribute>> GEMM_ATTRIBUTES = Map.of(
            "alpha", Attribute.FloatValue.class, "beta", Attribute.FloatValue.class,
            "transA", Attribute.IntValue.class, "transB", Attribute.IntValue.class);

    public static final OpSchema MATMUL = new OpSchema("", "MatMul", 1, 13, 2, List.of("T", "T"), List.of("T"), Map.of(),
            Map.of("T", MATMUL_TYPES));
    /** Gemm 7..10: C is required. */
    public static final OpSchema GEMM_7 = new OpSchema("", "Gemm", 7, 10, 3, List.of("T", "T", "T"), List.of("T"),
            GEMM_ATTRIBUTES, Map.of("T", MATMUL_TYPES));
    /** Gemm 11..13: C is optional. */
    public static final OpSchema GEMM_11 = new OpSchema("", "Gemm", 11, 13, 2, List.of("T", "T", "T"), List.of("T"),
            GEMM_ATTRIBUTES, Map.of("T", MATMUL_TYPES));

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = List.of(MATMUL, GEMM_7, GEMM_11);
}
