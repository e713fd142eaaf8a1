package dev.javaep.cpu.kernel.conv;

import static dev.javaep.cpu.kernel.conv.ConvolutionRun.concat;
import static dev.javaep.cpu.kernel.conv.ConvolutionRun.l;
import static dev.javaep.cpu.kernel.conv.KernelRun.integer;
import static dev.javaep.cpu.kernel.conv.KernelRun.ints;
import static dev.javaep.cpu.kernel.conv.KernelRun.string;

import dev.javaep.cpu.kernel.conv.ReferenceLoops.Spatial;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

/** JavaCpu's pools against {@link ReferenceLoops#pool}, with the output sizes worked out by hand. */
class PoolKernelTest {
    private static final ElementType F = ElementType.FLOAT;

    private static void check(String op, int version, ElementType type, long n, long c, long[] in, long[] kernel,
                              long[] strides, long[] dilations, long[] pads, long[] out, boolean countIncludePad,
                              Attribute... attributes) {
        Random random = new Random(Arrays.hashCode(in) * 13L + c + Arrays.hashCode(kernel) + version);
        long[] xShape = concat(new long[] {n, c}, in);
        float[] x = KernelRun.random(random, ReferenceLoops.product(xShape));
        if (type == ElementType.FLOAT16) {
            x = KernelRun.roundedToHalf(x);
        } else if (type == ElementType.UINT8 || type == ElementType.INT8) {
            for (int i = 0; i < x.length; i++) {
                x[i] = type == ElementType.UINT8 ? random.nextInt(256) : random.nextInt(256) - 128;
            }
        }
        float[] expected = ReferenceLoops.pool(x, n * c, new Spatial(in, kernel, strides, dilations, pads, out),
                op.equals("AveragePool"), countIncludePad);
        long[][] shapes = {xShape};
        float[] actual = KernelRun.run(KernelRun.node(op, version, type, shapes, attributes), type, new float[][] {x}, shapes,
                concat(new long[] {n, c}, out));
        KernelRun.assertClose(expected, actual, type == ElementType.FLOAT16 ? 1e-3f : 1e-6f,
                op + "-" + version + " X" + Arrays.toString(xShape) + " " + List.of(attributes));
    }

    @Test
    void maxPoolPadsStridesDilations() {
        check("MaxPool", 12, F, 2, 3, l(7, 8), l(3, 3), l(2, 2), l(1, 1), l(1, 1, 1, 1), l(4, 4), false,
                ints("kernel_shape", 3, 3), ints("strides", 2, 2), ints("pads", 1, 1, 1, 1));
        // H (9 - 5) / 1 + 1 = 5, W (8 + 1 - 3) / 2 + 1 = 4
        check("MaxPool", 10, F, 1, 2, l(9, 8), l(3, 2), l(1, 2), l(2, 2), l(0, 0, 0, 1), l(5, 4), false,
                ints("kernel_shape", 3, 2), ints("strides", 1, 2), ints("dilations", 2, 2), ints("pads", 0, 0, 0, 1));
        check("MaxPool", 1, F, 1, 2, l(5, 5), l(2, 2), l(1, 1), l(1, 1), l(0, 0, 0, 0), l(4, 4), false,
                ints("kernel_shape", 2, 2));
        check("MaxPool", 8, F, 1, 1, l(6, 6), l(2, 2), l(2, 2), l(1, 1), l(0, 0, 0, 0), l(3, 3), false,
                ints("kernel_shape", 2, 2), ints("strides", 2, 2), integer("storage_order", 1));
    }

    @Test
    void ceilMode() {
        // H 5, k 3, s 2: (5 - 3) / 2 = 1 exactly, 2 outputs either way; W 6: 1.5 → 3 outputs with ceil_mode
        check("MaxPool", 22, F, 1, 2, l(5, 6), l(3, 3), l(2, 2), l(1, 1), l(0, 0, 0, 0), l(2, 3), false,
                ints("kernel_shape", 3, 3), ints("strides", 2, 2), integer("ceil_mode", 1));
        // in 5 + pads 1 + 1, k 2, s 2: ceil(5 / 2) + 1 = 4, but window 3 would start at 6 - 1 = 5, in the end padding: 3
        check("MaxPool", 12, F, 1, 1, l(5, 5), l(2, 2), l(2, 2), l(1, 1), l(1, 1, 1, 1), l(3, 3), false,
                ints("kernel_shape", 2, 2), ints("strides", 2, 2), ints("pads", 1, 1, 1, 1), integer("ceil_mode", 1));
        check("AveragePool", 19, F, 1, 2, l(5, 6), l(3, 3), l(2, 2), l(1, 1), l(1, 0, 1, 0), l(3, 3), true,
                ints("kernel_shape", 3, 3), ints("strides", 2, 2), ints("pads", 1, 0, 1, 0), integer("ceil_mode", 1),
                integer("count_include_pad", 1));
    }

    @Test
    void averagePoolCountsPaddingOnlyWhenAsked() {
        for (boolean include : new boolean[] {false, true}) {
            check("AveragePool", 11, F, 2, 2, l(6, 7), l(3, 3), l(2, 2), l(1, 1), l(1, 2, 1, 0), l(3, 4), include,
                    ints("kernel_shape", 3, 3), ints("strides", 2, 2), ints("pads", 1, 2, 1, 0),
                    integer("count_include_pad", include ? 1 : 0));
            // dilations (opset 19): H (8 + 2 - 5) / 1 + 1 = 6
            check("AveragePool", 19, F, 1, 2, l(8, 8), l(3, 3), l(1, 3), l(2, 2), l(1, 1, 1, 1), l(6, 2), include,
                    ints("kernel_shape", 3, 3), ints("strides", 1, 3), ints("dilations", 2, 2), ints("pads", 1, 1, 1, 1),
                    integer("count_include_pad", include ? 1 : 0));
        }
        check("AveragePool", 1, F, 1, 2, l(4, 4), l(2, 2), l(2, 2), l(1, 1), l(0, 0, 0, 0), l(2, 2), false,
                ints("kernel_shape", 2, 2), ints("strides", 2, 2));
    }

    @Test
    void autoPad() {
        // 5 inputs, k 2, s 2: 3 outputs, total pad (3 - 1) * 2 + 2 - 5 = 1
        check("MaxPool", 12, F, 1, 2, l(5, 5), l(2, 2), l(2, 2), l(1, 1), l(0, 0, 1, 1), l(3, 3), false,
                ints("kernel_shape", 2, 2), ints("strides", 2, 2), string("auto_pad", "SAME_UPPER"));
        check("AveragePool", 11, F, 1, 2, l(5, 5), l(2, 2), l(2, 2), l(1, 1), l(1, 1, 0, 0), l(3, 3), false,
                ints("kernel_shape", 2, 2), ints("strides", 2, 2), string("auto_pad", "SAME_LOWER"));
        check("AveragePool", 7, F, 1, 2, l(5, 5), l(3, 3), l(1, 1), l(1, 1), l(1, 1, 1, 1), l(5, 5), true,
                ints("kernel_shape", 3, 3), string("auto_pad", "SAME_UPPER"), integer("count_include_pad", 1));
        check("MaxPool", 12, F, 1, 2, l(5, 6), l(3, 3), l(2, 2), l(1, 1), l(0, 0, 0, 0), l(2, 2), false,
                ints("kernel_shape", 3, 3), ints("strides", 2, 2), string("auto_pad", "VALID"), ints("pads", 1, 1, 1, 1));
    }

    @Test
    void oneAndThreeSpatialAxes() {
        check("MaxPool", 12, F, 2, 3, l(10), l(3), l(2), l(1), l(1, 1), l(5), false,
                ints("kernel_shape", 3), ints("strides", 2), ints("pads", 1, 1));
        check("AveragePool", 22, F, 1, 2, l(4, 5, 6), l(2, 3, 2), l(2, 1, 2), l(1, 2, 1), l(0, 1, 0, 0, 1, 0), l(2, 3, 3), true,
                ints("kernel_shape", 2, 3, 2), ints("strides", 2, 1, 2), ints("dilations", 1, 2, 1),
                ints("pads", 0, 1, 0, 0, 1, 0), integer("count_include_pad", 1));
        check("MaxPool", 12, F, 1, 1, l(4, 4, 4), l(2, 2, 2), l(2, 2, 2), l(1, 1, 1), l(0, 0, 0, 0, 0, 0), l(2, 2, 2), false,
                ints("kernel_shape", 2, 2, 2), ints("strides", 2, 2, 2));
    }

    @Test
    void otherElementTypes() {
        check("MaxPool", 12, ElementType.FLOAT16, 1, 2, l(6, 6), l(3, 3), l(2, 2), l(1, 1), l(1, 1, 1, 1), l(3, 3), false,
                ints("kernel_shape", 3, 3), ints("strides", 2, 2), ints("pads", 1, 1, 1, 1));
        check("AveragePool", 11, ElementType.FLOAT16, 1, 2, l(6, 6), l(3, 3), l(2, 2), l(1, 1), l(1, 1, 1, 1), l(3, 3), false,
                ints("kernel_shape", 3, 3), ints("strides", 2, 2), ints("pads", 1, 1, 1, 1));
        check("MaxPool", 12, ElementType.UINT8, 1, 2, l(5, 5), l(2, 2), l(1, 1), l(1, 1), l(0, 0, 0, 0), l(4, 4), false,
                ints("kernel_shape", 2, 2));
        check("MaxPool", 22, ElementType.INT8, 1, 2, l(5, 5), l(3, 3), l(2, 2), l(1, 1), l(1, 1, 1, 1), l(3, 3), false,
                ints("kernel_shape", 3, 3), ints("strides", 2, 2), ints("pads", 1, 1, 1, 1));
    }

    @Test
    void globalPools() {
        Random random = new Random(5);
        for (ElementType type : List.of(F, ElementType.FLOAT16)) {
            for (long[] shape : new long[][] {{2, 3, 4, 5}, {1, 2, 3, 4, 5}, {2, 3, 7}}) {
                long[] spatial = Arrays.copyOfRange(shape, 2, shape.length);
                long[] ones = new long[spatial.length];
                Arrays.fill(ones, 1);
                float[] x = KernelRun.random(random, ReferenceLoops.product(shape));
                if (type == ElementType.FLOAT16) {
                    x = KernelRun.roundedToHalf(x);
                }
                long[] outShape = concat(new long[] {shape[0], shape[1]}, ones);
                Spatial whole = new Spatial(spatial, spatial, ones, ones, new long[2 * spatial.length], ones);
                for (String op : List.of("GlobalAveragePool", "GlobalMaxPool")) {
                    float[] expected = ReferenceLoops.pool(x, shape[0] * shape[1], whole, op.equals("GlobalAveragePool"), false);
                    for (int version : new int[] {1, 22}) {
                        float[] actual = KernelRun.run(KernelRun.node(op, version, type, new long[][] {shape}), type,
                                new float[][] {x}, new long[][] {shape}, outShape);
                        KernelRun.assertClose(expected, actual, type == F ? 1e-6f : 1e-3f, op + " " + Arrays.toString(shape));
                    }
                }
            }
        }
    }
}
