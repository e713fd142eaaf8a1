package dev.javaep.cpu.kernel.conv;

import static dev.javaep.cpu.kernel.conv.ConvolutionRun.CONV;
import static dev.javaep.cpu.kernel.conv.ConvolutionRun.l;
import static dev.javaep.cpu.kernel.conv.KernelRun.ints;
import static dev.javaep.cpu.kernel.conv.KernelRun.string;

import dev.javaep.spi.ElementType;
import org.junit.jupiter.api.Test;

/** JavaCpu's Conv against {@link ReferenceLoops#conv}, in every form the kernel takes (im2col, pointwise, depthwise). */
class ConvKernelTest {
    private static final ElementType F = ElementType.FLOAT;

    @Test
    void im2colWithPadsStridesAndDilations() {
        CONV.check(F, 2, 3, 4, 1, l(7, 6), l(3, 3), l(1, 1), l(1, 1), l(1, 1, 1, 1), l(7, 6), true,
                ints("pads", 1, 1, 1, 1), ints("kernel_shape", 3, 3));
        // H: (9 + 0 + 2 - 5) / 2 + 1 = 4; W: (8 + 1 + 1 - 3) / 3 + 1 = 3
        CONV.check(F, 1, 3, 5, 1, l(9, 8), l(3, 3), l(2, 3), l(2, 1), l(0, 1, 2, 1), l(4, 3), true,
                ints("pads", 0, 1, 2, 1), ints("strides", 2, 3), ints("dilations", 2, 1));
        CONV.check(F, 1, 2, 3, 1, l(5, 5), l(2, 4), l(1, 1), l(1, 1), l(0, 0, 0, 0), l(4, 2), false);
    }

    @Test
    void groups() {
        CONV.check(F, 2, 4, 6, 2, l(6, 5), l(3, 3), l(1, 2), l(1, 1), l(1, 1, 1, 1), l(6, 3), true,
                ints("pads", 1, 1, 1, 1), ints("strides", 1, 2));
        CONV.check(F, 1, 6, 3, 3, l(5, 5), l(1, 1), l(1, 1), l(1, 1), l(0, 0, 0, 0), l(5, 5), true);
    }

    @Test
    void depthwiseAndChannelMultiplier() {
        CONV.check(F, 2, 5, 5, 5, l(9, 8), l(3, 3), l(2, 2), l(1, 1), l(1, 1, 1, 1), l(5, 4), true,
                ints("pads", 1, 1, 1, 1), ints("strides", 2, 2));
        CONV.check(F, 1, 3, 6, 3, l(7, 7), l(3, 3), l(1, 1), l(2, 2), l(2, 2, 2, 2), l(7, 7), false,
                ints("pads", 2, 2, 2, 2), ints("dilations", 2, 2));
        // one input channel, as the first layer of a single-channel super-resolution network
        CONV.check(F, 1, 1, 8, 1, l(12, 10), l(5, 5), l(1, 1), l(1, 1), l(2, 2, 2, 2), l(12, 10), true, ints("pads", 2, 2, 2, 2));
    }

    @Test
    void pointwise() {
        CONV.check(F, 2, 8, 5, 1, l(4, 6), l(1, 1), l(1, 1), l(1, 1), l(0, 0, 0, 0), l(4, 6), true);
        // a 1x1 kernel with a stride is not pointwise: it skips inputs
        CONV.check(F, 1, 8, 5, 1, l(5, 6), l(1, 1), l(2, 2), l(1, 1), l(0, 0, 0, 0), l(3, 3), true, ints("strides", 2, 2));
    }

    @Test
    void autoPad() {
        // H 6, stride 2, kernel 3: 3 outputs, total pad (3 - 1) * 2 + 3 - 6 = 1; W 7, kernel 4: 4 outputs, total 3
        CONV.check(F, 1, 2, 3, 1, l(6, 7), l(3, 4), l(2, 2), l(1, 1), l(0, 1, 1, 2), l(3, 4), true,
                string("auto_pad", "SAME_UPPER"), ints("strides", 2, 2));
        CONV.check(F, 1, 2, 3, 1, l(6, 7), l(3, 4), l(2, 2), l(1, 1), l(1, 2, 0, 1), l(3, 4), true,
                string("auto_pad", "SAME_LOWER"), ints("strides", 2, 2));
        CONV.check(F, 1, 2, 3, 1, l(6, 7), l(3, 4), l(2, 2), l(1, 1), l(0, 0, 0, 0), l(2, 2), true,
                string("auto_pad", "VALID"), ints("strides", 2, 2));
        // SAME with a dilation: the dilated kernel (5) sets the padding, 4 + 0 total along H (ceil(5 / 1) = 5 outputs)
        CONV.check(F, 1, 2, 2, 1, l(5, 5), l(3, 3), l(1, 1), l(2, 2), l(2, 2, 2, 2), l(5, 5), false,
                string("auto_pad", "SAME_UPPER"), ints("dilations", 2, 2));
    }

    @Test
    void oneAndThreeSpatialAxes() {
        // 1-D: (11 + 3 - 7) / 3 + 1 = 3
        CONV.check(F, 2, 3, 2, 1, l(11), l(4), l(3), l(2), l(2, 1), l(3), true,
                ints("pads", 2, 1), ints("strides", 3), ints("dilations", 2));
        // 3-D: D (4 + 2 - 2) + 1 = 5, H (5 + 2 - 3) / 2 + 1 = 3, W (6 + 2 - 2) + 1 = 7
        CONV.check(F, 1, 2, 3, 1, l(4, 5, 6), l(2, 3, 2), l(1, 2, 1), l(1, 1, 1), l(1, 1, 1, 1, 1, 1), l(5, 3, 7), true,
                ints("pads", 1, 1, 1, 1, 1, 1), ints("strides", 1, 2, 1));
        CONV.check(F, 1, 4, 4, 4, l(3, 4, 5), l(3, 3, 3), l(1, 1, 1), l(1, 1, 1), l(1, 1, 1, 1, 1, 1), l(3, 4, 5), false,
                ints("pads", 1, 1, 1, 1, 1, 1));
    }

    @Test
    void manyRunsOfOutputRows() {
        // 32 channels x 9 taps x 100 columns exceed the column budget: runs of 9 output rows (the last one shorter)
        CONV.check(F, 1, 32, 2, 1, l(20, 100), l(3, 3), l(1, 1), l(1, 1), l(1, 1, 1, 1), l(20, 100), true,
                ints("pads", 1, 1, 1, 1));
        // strided W inside runs (6 rows of 150 columns per run)
        CONV.check(F, 1, 32, 2, 1, l(17, 300), l(3, 3), l(2, 2), l(1, 1), l(1, 1, 1, 1), l(9, 150), true,
                ints("pads", 1, 1, 1, 1), ints("strides", 2, 2));
    }

    @Test
    void float16() {
        ElementType h = ElementType.FLOAT16;
        CONV.check(h, 1, 3, 4, 1, l(6, 5), l(3, 3), l(1, 1), l(1, 1), l(1, 1, 1, 1), l(6, 5), true, ints("pads", 1, 1, 1, 1));
        CONV.check(h, 1, 4, 4, 4, l(6, 5), l(3, 3), l(2, 1), l(1, 1), l(1, 1, 1, 1), l(3, 5), true,
                ints("pads", 1, 1, 1, 1), ints("strides", 2, 1));
        CONV.check(h, 1, 6, 2, 1, l(3, 3), l(1, 1), l(1, 1), l(1, 1), l(0, 0, 0, 0), l(3, 3), false);
    }
}
