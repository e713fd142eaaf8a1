package dev.javaep.spi.ops;

import java.util.List;
import java.util.Map;

/**
 * Shape and data-movement ops: Identity, Reshape, Flatten, Squeeze, Unsqueeze, Transpose, Concat, Split,
 * Slice, Pad, Expand, Tile, Gather, GatherElements, ScatterND, Shape, Size, Constant, ConstantOfShape, Range,
 * DepthToSpace, SpaceToDepth. Backends: {@code dev.javaep.cpu.kernel.tensor} and
 * {@code dev.javaep.cuda.kernel.tensor}.
 */
public final class TensorOps {
    private TensorOps() {}

    public static final OpSchema IDENTITY = new OpSchema("", "Identity", 1, 25, 1, List.of("V"), List.of("V"), Map.of(),
            Map.of("V", OnnxTypes.ANY));

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = List.of(IDENTITY);
}
