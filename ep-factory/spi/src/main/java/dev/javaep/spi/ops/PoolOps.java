package dev.javaep.spi.ops;

import java.util.List;

/** MaxPool, AveragePool (pads, ceil_mode, count_include_pad, dilations), GlobalAveragePool, GlobalMaxPool. Backends: {@code dev.javaep.cpu.kernel.conv}, {@code dev.javaep.cuda.kernel.conv}. */
public final class PoolOps {
    private PoolOps() {}

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = List.of();
}
