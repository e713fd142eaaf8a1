package dev.javaep.cuda.kernel.conv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cuda.dnn.Cudnn;
import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.cuda.kernel.DeviceRunContext;
import dev.javaep.cuda.kernel.GpuTest;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * JavaCuda's conv and pool kernels on GPU 0 against JavaCpu's kernels (themselves checked against naive loops), for
 * float32 and float16 on the same inputs (float16 runs read inputs rounded to float16 on both sides). Tolerances:
 * float32 1e-4 relative to max(1, |y|) (the sums run in another order, with fused multiply-adds); float16 4e-3
 * relative (Y rounds to float16, whose step is 2^-10 of the value, and cuDNN picks its algorithm by GPU timing, so per
 * run: its float16 tensor-core algorithms for a transposed convolution were measured 2.4e-3 away (5 float16 steps
 * near 1) on an H100 in two runs of three, where the direct kernels stay within 1e-3). Prints kernel times for a few layer
 * shapes from real networks.
 */
@Tag("gpu")
class ConvGpuTest extends GpuTest {
    private static final ElementType F32 = ElementType.FLOAT;
    private static final ElementType F16 = ElementType.FLOAT16;



    private static Attribute ints(String name, long... values) {
        List<Long> list = new ArrayList<>();
        for (long v : values) {
            list.add(v);
        }
        return new Attribute.IntList(name, list);
    }

    private static Attribute integer(String name, long value) {
        return new Attribute.IntValue(name, value);
    }

    private static Node node(String op, int version, ElementType type, long[][] shapes, Attribute... attributes) {
        List<ValueInfo> inputs = new ArrayList<>();
        for (int i = 0; i < shapes.length; i++) {
            inputs.add(new ValueInfo("in" + i, type, shapes[i], true));
        }
        Map<String, Attribute> map = new HashMap<>();
        for (Attribute a : attributes) {
            map.put(a.name(), a);
        }
        return new Node(1, op.toLowerCase(), op, "", version, inputs, List.of(new ValueInfo("y", type, null, true)), map);
    }

    /** Values in [-2, 2), rounded to float16 so both types read the same numbers. */
    private static float[] random(Random r, long n) {
        float[] v = new float[Math.toIntExact(n)];
        for (int i = 0; i < v.length; i++) {
            v[i] = Float.float16ToFloat(Float.floatToFloat16(r.nextFloat() * 4 - 2));
        }
        return v;
    }

    private static float[] onCpu(Node node, ElementType type, float[][] data, long[][] shapes) {
        CpuKernel kernel = CpuKernels.forNode(node).orElseThrow(() -> new AssertionError("JavaCpu declined " + node));
        try (Arena arena = Arena.ofConfined()) {
            List<HostTensor> inputs = new ArrayList<>();
            for (int i = 0; i < data.length; i++) {
                HostTensor t = HostTensor.allocate(arena, type, shapes[i]);
                for (int j = 0; j < data[i].length; j++) {
                    if (type == F32) {
                        t.data().setAtIndex(ValueLayout.JAVA_FLOAT, j, data[i][j]);
                    } else {
                        t.data().setAtIndex(ValueLayout.JAVA_SHORT, j, Float.floatToFloat16(data[i][j]));
                    }
                }
                inputs.add(t);
            }
            HostTensor y = HostTensor.allocate(arena, type, kernel.outputShapes(shapes)[0]);
            kernel.compute(inputs, List.of(y));
            float[] out = new float[Math.toIntExact(y.elementCount())];
            for (int i = 0; i < out.length; i++) {
                out[i] = type == F32 ? y.data().getAtIndex(ValueLayout.JAVA_FLOAT, i)
                        : Float.float16ToFloat(y.data().getAtIndex(ValueLayout.JAVA_SHORT, i));
            }
            return out;
        }
    }

    /**
     * Runs the node on both EPs' kernels in both types, and for Conv and ConvTranspose on both backends (cuDNN where
     * it is installed, with TF32 off so float32 keeps float32's tolerance, then the direct kernels); returns the float32
     * GPU kernel time in ms of the last backend when {@code timed}.
     */
    private double check(String what, String op, int version, long[][] shapes, boolean timed, Attribute... attributes) {
        if (!op.startsWith("Conv")) {
            return check(what, op, version, shapes, timed, null, attributes);
        }
        String previous = System.getProperty(ConvBackend.PROPERTY);
        System.setProperty(ConvBackend.TF32_PROPERTY, "false");
        try {
            double millis = 0;
            for (ConvBackend backend : ConvBackend.values()) {
                System.setProperty(ConvBackend.PROPERTY, backend.name().toLowerCase(java.util.Locale.ROOT));
                millis = check(what + " [" + backend.name().toLowerCase(java.util.Locale.ROOT) + "]", op, version, shapes,
                        timed, backend, attributes);
            }
            return millis;
        } finally {
            System.clearProperty(ConvBackend.TF32_PROPERTY);
            if (previous == null) {
                System.clearProperty(ConvBackend.PROPERTY);
            } else {
                System.setProperty(ConvBackend.PROPERTY, previous);
            }
        }
    }

    private double check(String what, String op, int version, long[][] shapes, boolean timed, ConvBackend backend,
                         Attribute... attributes) {
        double millis = 0;
        for (ElementType type : List.of(F32, F16)) {
            Random random = new Random(Arrays.deepHashCode(shapes) + op.hashCode());
            float[][] data = new float[shapes.length][];
            for (int i = 0; i < shapes.length; i++) {
                data[i] = random(random, Arrays.stream(shapes[i]).reduce(1, Math::multiplyExact));
            }
            Node node = node(op, version, type, shapes, attributes);
            float[] expected = onCpu(node, type, data, shapes);
            CompiledNode gpu = CudaOps.compile(node, device);
            if (backend != null && gpu instanceof ConvolutionNode convolution) {
                assertEquals(backend == ConvBackend.CUDNN && Cudnn.find().isPresent(), convolution.usesCudnn(), what);
            }
            try (gpu; DeviceRunContext context = DeviceRunContext.repeatable(driver, stream, type, 1, data, shapes)) {
                gpu.compute(context);
                float[] actual = context.output(0);
                assertArrayEquals(CpuKernels.forNode(node).orElseThrow().outputShapes(shapes)[0], context.outputShape(0), what);
                assertEquals(expected.length, actual.length, what);
                float tolerance = type == F32 ? 1e-4f : 4e-3f;
                double worst = 0;
                for (int i = 0; i < expected.length; i++) {
                    double error = Math.abs(expected[i] - actual[i]) / Math.max(1f, Math.abs(expected[i]));
                    if (!(error <= tolerance)) {
                        throw new AssertionError(what + " " + type + ": element " + i + " is " + actual[i] + " on the GPU, "
                                + expected[i] + " on the CPU");
                    }
                    worst = Math.max(worst, error);
                }
                String time = "";
                if (timed) {
                    double ms = time(gpu, context);
                    time = String.format(" | %.4f ms", ms);
                    if (type == F32) {
                        millis = ms;
                    }
                }
                System.out.printf("%-44s %-7s worst relative error %.1e%s%n", what, type, worst, time);
            }
        }
        return millis;
    }

    /** Mean kernel time over 20 Computes, after 3 to warm up (compilation included there), between CUDA events. */
    private double time(CompiledNode node, DeviceRunContext context) {
        for (int i = 0; i < 3; i++) {
            node.compute(context);
        }
        long start = driver.eventCreate(0);
        long end = driver.eventCreate(0);
        try {
            driver.eventRecord(start, stream);
            for (int i = 0; i < 20; i++) {
                node.compute(context);
            }
            driver.eventRecord(end, stream);
            driver.eventSynchronize(end);
            return driver.eventElapsedMillis(start, end) / 20.0;
        } finally {
            driver.eventDestroy(start);
            driver.eventDestroy(end);
        }
    }

    private static long[] l(long... v) {
        return v;
    }

    @Test
    void convolutionsMatchJavaCpu() {
        double espcn = check("ESPCN-like 5x5 3->64, 64x64", "Conv", 11, new long[][] {l(1, 3, 64, 64), l(64, 3, 5, 5), l(64)},
                true, ints("pads", 2, 2, 2, 2));
        System.out.printf("  = %.1f GFLOP/s%n", 2.0 * 64 * 64 * 64 * 3 * 25 / (espcn * 1e6));
        check("depthwise 3x3, 32 channels, 56x56", "Conv", 11, new long[][] {l(1, 32, 56, 56), l(32, 1, 3, 3), l(32)},
                true, ints("pads", 1, 1, 1, 1), integer("group", 32));
        check("depthwise 3x3 stride 2, channel multiplier 2", "Conv", 22, new long[][] {l(2, 16, 29, 30), l(32, 1, 3, 3)},
                false, ints("pads", 1, 1, 1, 1), ints("strides", 2, 2), integer("group", 16));
        double resnet = check("ResNet-like 3x3 64->64, 56x56", "Conv", 11,
                new long[][] {l(1, 64, 56, 56), l(64, 64, 3, 3), l(64)}, true, ints("pads", 1, 1, 1, 1));
        System.out.printf("  = %.1f GFLOP/s%n", 2.0 * 56 * 56 * 64 * 64 * 9 / (resnet * 1e6));
        check("pointwise 1x1 32->48", "Conv", 1, new long[][] {l(2, 32, 14, 15), l(48, 32, 1, 1)}, false);
        check("grouped, dilated, strided, asymmetric pads", "Conv", 11, new long[][] {l(2, 6, 17, 19), l(9, 2, 3, 3), l(9)},
                false, integer("group", 3), ints("dilations", 2, 1), ints("strides", 2, 3), ints("pads", 2, 0, 1, 1));
        check("SAME_LOWER stride 2", "Conv", 11, new long[][] {l(1, 3, 15, 16), l(5, 3, 4, 3)}, false,
                new Attribute.StringValue("auto_pad", "SAME_LOWER"), ints("strides", 2, 2));
        check("1-D k7 dilation 3", "Conv", 22, new long[][] {l(3, 4, 50), l(6, 4, 7), l(6)}, false,
                ints("dilations", 3), ints("pads", 9, 9));
        check("3-D 3x3x3", "Conv", 11, new long[][] {l(1, 4, 8, 9, 10), l(5, 4, 3, 3, 3), l(5)}, false,
                ints("pads", 1, 1, 1, 1, 1, 1), ints("strides", 1, 2, 1));
    }

    @Test
    void transposedConvolutionsMatchJavaCpu() {
        check("U-Net up-conv 2x2 stride 2, 64->32, 32x32", "ConvTranspose", 11,
                new long[][] {l(1, 64, 32, 32), l(64, 32, 2, 2), l(32)}, true, ints("strides", 2, 2));
        check("style-transfer 3x3 s2 pads 1 output_padding 1", "ConvTranspose", 11,
                new long[][] {l(1, 16, 20, 21), l(16, 8, 3, 3), l(8)}, true, ints("strides", 2, 2), ints("pads", 1, 1, 1, 1),
                ints("output_padding", 1, 1));
        check("groups 2, dilations, output_shape", "ConvTranspose", 22, new long[][] {l(2, 4, 5, 6), l(4, 3, 3, 3)}, false,
                integer("group", 2), ints("dilations", 2, 1), ints("strides", 2, 2), ints("output_shape", 14, 12));
        check("1-D stride 3", "ConvTranspose", 1, new long[][] {l(2, 3, 9), l(3, 2, 4), l(2)}, false, ints("strides", 3));
        check("3-D stride 2", "ConvTranspose", 11, new long[][] {l(1, 3, 4, 5, 6), l(3, 2, 3, 3, 3), l(2)}, false,
                ints("strides", 2, 2, 2), ints("pads", 1, 1, 1, 1, 1, 1));
    }

    @Test
    void poolsMatchJavaCpu() {
        check("MaxPool 3x3 s2 pads 1, 64x112x112", "MaxPool", 12, new long[][] {l(1, 64, 112, 112)}, true,
                ints("kernel_shape", 3, 3), ints("strides", 2, 2), ints("pads", 1, 1, 1, 1));
        check("MaxPool ceil_mode, dilations", "MaxPool", 12, new long[][] {l(2, 3, 15, 16)}, false,
                ints("kernel_shape", 3, 2), ints("strides", 2, 2), ints("dilations", 2, 1), integer("ceil_mode", 1));
        check("AveragePool count_include_pad, ceil_mode", "AveragePool", 19, new long[][] {l(2, 3, 15, 16)}, false,
                ints("kernel_shape", 3, 3), ints("strides", 2, 2), ints("pads", 1, 0, 1, 0), integer("ceil_mode", 1),
                integer("count_include_pad", 1));
        check("AveragePool pads excluded, 1-D", "AveragePool", 11, new long[][] {l(2, 3, 31)}, false,
                ints("kernel_shape", 4), ints("strides", 3), ints("pads", 2, 1));
        check("AveragePool 3-D SAME_UPPER", "AveragePool", 11, new long[][] {l(1, 2, 7, 8, 9)}, false,
                ints("kernel_shape", 2, 3, 2), ints("strides", 2, 2, 2), new Attribute.StringValue("auto_pad", "SAME_UPPER"));
        check("GlobalAveragePool 512x7x7", "GlobalAveragePool", 1, new long[][] {l(2, 512, 7, 7)}, true);
        check("GlobalMaxPool 3-D", "GlobalMaxPool", 22, new long[][] {l(2, 5, 6, 7, 8)}, false);
        check("GlobalAveragePool 1x1 planes of 4096", "GlobalAveragePool", 22, new long[][] {l(1, 3, 64, 64)}, false);
    }
}
