package dev.javaep.cpu.kernel.conv;

import static dev.javaep.cpu.kernel.conv.ConvolutionRun.CONV;
import static dev.javaep.cpu.kernel.conv.ConvolutionRun.l;
import static dev.javaep.cpu.kernel.conv.KernelRun.ints;
import static dev.javaep.cpu.kernel.conv.KernelRun.string;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.KernelThreads;
import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.cpu.kernel.conv.ReferenceLoops.Spatial;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.Map;
import java.util.Random;
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
    void manyBlocksOfPositionsAndChannelsPastAPanel() {
        // 10 output channels: two panels of four and one of two; 19 x 45 outputs with padding columns: blocks of positions
        // whose last vector runs past the end
        CONV.check(F, 1, 6, 10, 1, l(19, 45), l(3, 3), l(1, 1), l(1, 1), l(1, 1, 1, 1), l(19, 45), true,
                ints("pads", 1, 1, 1, 1));
        // stride 2 with a dilation of 2: every tap reads phase (0, 0) of the stride phases; stride 3 reads all nine
        CONV.check(F, 1, 5, 7, 1, l(23, 31), l(3, 3), l(2, 2), l(2, 2), l(2, 1, 2, 1), l(12, 15), true,
                ints("pads", 2, 1, 2, 1), ints("strides", 2, 2), ints("dilations", 2, 2));
        CONV.check(F, 2, 4, 5, 1, l(17, 20), l(3, 3), l(3, 3), l(1, 1), l(1, 1, 1, 1), l(6, 7), false,
                ints("pads", 1, 1, 1, 1), ints("strides", 3, 3));
        // depthwise 5x5, stride 2, on planes of 2x2 (mobilenet's last blocks) and 33x33
        CONV.check(F, 1, 9, 9, 9, l(2, 2), l(5, 5), l(2, 2), l(1, 1), l(2, 2, 2, 2), l(1, 1), true,
                ints("pads", 2, 2, 2, 2), ints("strides", 2, 2));
        CONV.check(F, 2, 3, 3, 3, l(33, 33), l(5, 5), l(2, 2), l(1, 1), l(2, 2, 2, 2), l(17, 17), true,
                ints("pads", 2, 2, 2, 2), ints("strides", 2, 2));
    }

    @Test
    void splitAcrossKernelThreads() {
        KernelThreads pool = KernelThreads.acquire(3);
        try {
            KernelThreads.enter(pool);
            // 1.8M multiply-adds over four blocks of positions; depthwise: 32 planes, 460k multiply-adds
            CONV.check(F, 1, 16, 10, 1, l(40, 40), l(3, 3), l(1, 1), l(1, 1), l(1, 1, 1, 1), l(40, 40), true,
                    ints("pads", 1, 1, 1, 1));
            CONV.check(F, 1, 32, 32, 32, l(40, 40), l(3, 3), l(1, 1), l(1, 1), l(1, 1, 1, 1), l(40, 40), true,
                    ints("pads", 1, 1, 1, 1));
        } finally {
            KernelThreads.enter(null);
            KernelThreads.release(pool);
        }
    }

    @Test
    void constantWeightsArePackedOnceAndOtherWeightsEveryCall() {
        long[][] shapes = {{1, 3, 5, 6}, {5, 3, 3, 3}};
        long[] xShape = shapes[0];
        long[] wShape = shapes[1];
        Random random = new Random(13);
        // the weights of the first call, then of the second
        float[][] weights = {KernelRun.random(random, 135), KernelRun.random(random, 135)};
        for (boolean constant : new boolean[] {true, false}) {
            Node node = new Node(1, "conv", "Conv", "", 11,
                    List.of(new ValueInfo("x", F, xShape, true), new ValueInfo("w", F, wShape, true, constant, null)),
                    List.of(new ValueInfo("y", F, null, true)), Map.of("pads", ints("pads", 1, 1, 1, 1)));
            PlannedKernel.Plan plan = ((PlannedKernel) KernelRun.kernel(node)).plan(shapes);
            try (Arena arena = Arena.ofConfined()) {
                for (int call = 0; call < 2; call++) {
                    float[] x = KernelRun.random(random, ReferenceLoops.product(xShape));
                    float[] given = weights[call];
                    HostTensor y = TestTensors.misaligned(arena, F, 1, 5, 5, 6);
                    plan.compute(List.of(KernelRun.tensor(arena, F, x, xShape), KernelRun.tensor(arena, F, given, wShape)),
                            List.of(y));
                    // constant weights cannot change: the plan keeps what it packed on the first call
                    float[] expected = ReferenceLoops.conv(x, constant ? weights[0] : given, null, 1, 3, 5, 1,
                            new Spatial(l(5, 6), l(3, 3), l(1, 1), l(1, 1), l(1, 1, 1, 1), l(5, 6)));
                    KernelRun.assertClose(expected, KernelRun.values(y), 27e-5f, "constant " + constant + ", call " + call);
                }
            }
        }
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
