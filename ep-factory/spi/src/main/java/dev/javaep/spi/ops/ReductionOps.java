package dev.javaep.spi.ops;

import dev.javaep.spi.Attribute;
import java.util.List;
import java.util.Map;

/**
 * Reductions along axes: ReduceMean/Sum/Max/Min/Prod/L2/SumSquare/LogSumExp, ArgMax/ArgMin, Softmax,
 * LogSoftmax. Backends: {@code dev.javaep.cpu.kernel.reduction}, {@code dev.javaep.cuda.kernel.reduction}.
 */
public final class ReductionOps {
    private ReductionOps() {}

    /** Softmax 1..12: the input is coerced to 2-D at {@code axis} (default 1). */
    public static final OpSchema SOFTMAX_1 = new OpSchema("", "Softmax", 1, 12, 1, List.of("T"), List.of("T"),
            Map.of("axis", Attribute.IntValue.class), Map.of("T", OnnxTypes.FLOATS));
    /** Softmax 13: along the one dimension {@code axis} (default -1). */
    public static final OpSchema SOFTMAX_13 = new OpSchema("", "Softmax", 13, 13, 1, List.of("T"), List.of("T"),
            Map.of("axis", Attribute.IntValue.class), Map.of("T", OnnxTypes.FLOATS));

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = List.of(SOFTMAX_1, SOFTMAX_13);
}
