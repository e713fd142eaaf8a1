package dev.javaep.spi.ops;

import java.util.List;

/** Resize, Upsample, GridSample. Backends: {@code dev.javaep.cpu.kernel.sampling}, {@code dev.javaep.cuda.kernel.sampling}. */
public final class SamplingOps {
    private SamplingOps() {}

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = List.of();
}
