package dev.javaep.spi.ops;

import dev.javaep.spi.ElementType;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Elementwise ops: arithmetic with numpy broadcasting, unary math and activations, comparisons and logic,
 * Cast, Where, Clip, variadic Min/Max/Sum/Mean. Backends: {@code dev.javaep.cpu.kernel.elementwise} and
 * {@code dev.javaep.cuda.kernel.elementwise}.
 */
public final class ElementwiseOps {
    private ElementwiseOps() {}

    private static final Set<ElementType> RELU_TYPES = OnnxTypes.union(OnnxTypes.FLOATS,
            Set.of(ElementType.INT8, ElementType.INT16, ElementType.INT32, ElementType.INT64));

    private static OpSchema binary(String op) {
        return new OpSchema("", op, 7, 14, 2, List.of("T", "T"), List.of("T"), Map.of(), Map.of("T", OnnxTypes.NUMERIC));
    }

    private static OpSchema unary(String op, int since, int last, Set<ElementType> types) {
        return new OpSchema("", op, since, last, 1, List.of("T"), List.of("T"), Map.of(), Map.of("T", types));
    }

    /** Add, Sub, Mul, Div from 7 (numpy broadcasting, no attributes) to 14. */
    public static final OpSchema ADD = binary("Add");
    public static final OpSchema SUB = binary("Sub");
    public static final OpSchema MUL = binary("Mul");
    public static final OpSchema DIV = binary("Div");
    public static final OpSchema RELU = unary("Relu", 6, 14, RELU_TYPES);
    public static final OpSchema SIGMOID = unary("Sigmoid", 6, 13, OnnxTypes.FLOATS);
    public static final OpSchema TANH = unary("Tanh", 6, 13, OnnxTypes.FLOATS);

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = List.of(ADD, SUB, MUL, DIV, RELU, SIGMOID, TANH);
}
