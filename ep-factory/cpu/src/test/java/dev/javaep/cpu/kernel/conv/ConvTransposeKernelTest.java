package dev.javaep.cpu.kernel.conv;

import static dev.javaep.cpu.kernel.conv.ConvolutionRun.CONV_TRANSPOSE;
import static dev.javaep.cpu.kernel.conv.ConvolutionRun.l;
import static dev.javaep.cpu.kernel.conv.KernelRun.ints;
import static dev.javaep.cpu.kernel.conv.KernelRun.string;

import dev.javaep.spi.ElementType;
import org.junit.jupiter.api.Test;

/** JavaCpu's ConvTranspose against the scatter of {@link ReferenceLoops#convTranspose}. */
class ConvTransposeKernelTest {
    private static final ElementType F = ElementType.FLOAT;

    @Test
    void stridesPadsAndOutputPadding() {
        CONV_TRANSPOSE.check(F, 2, 2, 3, 1, l(3, 4), l(3, 3), l(1, 1), l(1, 1), l(0, 0, 0, 0), l(5, 6), true);
        // full H (3 - 1) * 3 + 1 + 3 = 10, minus pads 1 + 1 = 8; W (3 - 1) * 2 + 1 + 3 = 8, minus 2 + 2 = 4
        CONV_TRANSPOSE.check(F, 1, 1, 2, 1, l(3, 3), l(3, 3), l(3, 2), l(1, 1), l(1, 2, 1, 2), l(8, 4), true,
                ints("strides", 3, 2), ints("pads", 1, 2, 1, 2), ints("output_padding", 1, 1));
        CONV_TRANSPOSE.check(F, 1, 3, 2, 1, l(4, 3), l(2, 3), l(2, 2), l(2, 1), l(0, 0, 0, 0), l(9, 7), false,
                ints("strides", 2, 2), ints("dilations", 2, 1), ints("kernel_shape", 2, 3));
    }

    @Test
    void groups() {
        CONV_TRANSPOSE.check(F, 2, 4, 6, 2, l(3, 3), l(3, 3), l(1, 1), l(2, 1), l(0, 0, 0, 0), l(7, 5), true,
                ints("dilations", 2, 1));
        // depthwise upsampling
        CONV_TRANSPOSE.check(F, 1, 3, 3, 3, l(4, 4), l(4, 4), l(2, 2), l(1, 1), l(1, 1, 1, 1), l(8, 8), true,
                ints("strides", 2, 2), ints("pads", 1, 1, 1, 1));
    }

    @Test
    void outputShapeDerivesThePads() {
        // full 9 x 7 is smaller than the requested 10 x 8: no pads, the last row and column are bias only
        CONV_TRANSPOSE.check(F, 1, 1, 2, 1, l(3, 3), l(3, 3), l(3, 2), l(1, 1), l(0, 0, 0, 0), l(10, 8), true,
                ints("strides", 3, 2), ints("output_shape", 10, 8));
        // full 7 x 7, requested 6 x 5: totals 1 and 2, an odd one's extra at the beginning (NOTSET)
        CONV_TRANSPOSE.check(F, 1, 2, 2, 1, l(3, 3), l(3, 3), l(2, 2), l(1, 1), l(1, 1, 0, 1), l(6, 5), true,
                ints("strides", 2, 2), ints("output_shape", 6, 5));
        // output_shape may include N and C, which ONNX Runtime accepts
        CONV_TRANSPOSE.check(F, 1, 2, 2, 1, l(3, 3), l(3, 3), l(2, 2), l(1, 1), l(1, 1, 0, 1), l(6, 5), false,
                ints("strides", 2, 2), ints("output_shape", 1, 2, 6, 5));
        // with output_padding taking part in the total: full 8, requested 7 → 1
        CONV_TRANSPOSE.check(F, 1, 1, 1, 1, l(3), l(3), l(2), l(1), l(1, 0), l(7), true,
                ints("strides", 2), ints("output_shape", 7), ints("output_padding", 1));
    }

    @Test
    void autoPad() {
        // full 7, SAME targets 3 * 2 = 6: one to crop, at the end for SAME_UPPER, at the beginning for SAME_LOWER
        CONV_TRANSPOSE.check(F, 1, 1, 2, 1, l(3, 3), l(3, 3), l(2, 2), l(1, 1), l(0, 0, 1, 1), l(6, 6), true,
                string("auto_pad", "SAME_UPPER"), ints("strides", 2, 2));
        CONV_TRANSPOSE.check(F, 1, 1, 2, 1, l(3, 3), l(3, 3), l(2, 2), l(1, 1), l(1, 1, 0, 0), l(6, 6), true,
                string("auto_pad", "SAME_LOWER"), ints("strides", 2, 2));
        CONV_TRANSPOSE.check(F, 1, 2, 1, 1, l(3, 4), l(3, 3), l(1, 1), l(1, 1), l(0, 0, 0, 0), l(5, 6), true,
                string("auto_pad", "VALID"), ints("pads", 1, 1, 1, 1));
    }

    @Test
    void oneAndThreeSpatialAxes() {
        CONV_TRANSPOSE.check(F, 2, 2, 3, 1, l(5), l(3), l(2), l(1), l(1, 0), l(10), true,
                ints("strides", 2), ints("pads", 1, 0));
        CONV_TRANSPOSE.check(F, 1, 2, 2, 1, l(2, 3, 3), l(2, 2, 3), l(1, 2, 2), l(1, 1, 1), l(0, 0, 1, 0, 1, 0), l(3, 5, 6), true,
                ints("strides", 1, 2, 2), ints("pads", 0, 0, 1, 0, 1, 0));
    }

    @Test
    void manyRunsOfInputRows() {
        // 32 output channels x 9 taps x 100 input columns exceed the column budget
        CONV_TRANSPOSE.check(F, 1, 2, 32, 1, l(12, 100), l(3, 3), l(2, 1), l(1, 1), l(1, 1, 1, 1), l(23, 100), true,
                ints("strides", 2, 1), ints("pads", 1, 1, 1, 1));
    }

    @Test
    void float16() {
        ElementType h = ElementType.FLOAT16;
        CONV_TRANSPOSE.check(h, 1, 3, 2, 1, l(4, 4), l(3, 3), l(2, 2), l(1, 1), l(1, 1, 1, 1), l(7, 7), true,
                ints("strides", 2, 2), ints("pads", 1, 1, 1, 1));
        CONV_TRANSPOSE.check(h, 1, 4, 4, 2, l(3, 3), l(2, 2), l(2, 2), l(1, 1), l(0, 0, 0, 0), l(6, 6), false,
                ints("strides", 2, 2));
    }
}
