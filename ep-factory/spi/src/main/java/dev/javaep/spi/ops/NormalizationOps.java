package dev.javaep.spi.ops;

import java.util.List;

/** BatchNormalization (inference), InstanceNormalization, LayerNormalization, GroupNormalization. Backends: {@code dev.javaep.cpu.kernel.normalization}, {@code dev.javaep.cuda.kernel.normalization}. */
public final class NormalizationOps {
    private NormalizationOps() {}

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = List.of();
}
