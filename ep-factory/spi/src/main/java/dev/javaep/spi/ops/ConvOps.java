package dev.javaep.spi.ops;

import java.util.List;

/** Conv and ConvTranspose (1-D, 2-D, 3-D; groups, dilations, strides, pads, auto_pad, output_padding, output_shape). Backends: {@code dev.javaep.cpu.kernel.conv}, {@code dev.javaep.cuda.kernel.conv}. */
public final class ConvOps {
    private ConvOps() {}

    /** Every schema of this family, for the op index ({@link OnnxOps#all}). */
    public static final List<OpSchema> SCHEMAS = List.of();
}
