package dev.javaep.cpu.kernel.sampling;

import static dev.javaep.cpu.kernel.TestNodes.kernel;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.TestNodes;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Resize, Upsample and GridSample against values worked out by hand from the ONNX formulas. */
class SamplingKernelsTest {
    private static final ElementType F = ElementType.FLOAT;
    private static final ElementType I64 = ElementType.INT64;

    /** A node whose Y has X's type. */
    private static Node node(String op, int version, List<ElementType> inputs, Attribute... attributes) {
        return TestNodes.node(op, version, inputs, inputs.getFirst(), attributes);
    }

    private static Attribute string(String name, String value) {
        return new Attribute.StringValue(name, value);
    }

    /** Runs {@code kernel} on X (float32) and the given small inputs; returns Y and checks its shape. */
    private static float[] run(CpuKernel kernel, float[] x, long[] xShape, long[] yShape, HostTensor... more) {
        try (Arena arena = Arena.ofConfined()) {
            List<HostTensor> inputs = new ArrayList<>();
            inputs.add(TestTensors.floats(arena, x, xShape));
            inputs.addAll(Arrays.asList(more));
            long[][] shapes = kernel.outputShapes(inputs);
            assertArrayEquals(yShape, shapes[0], Arrays.toString(shapes[0]));
            HostTensor y = TestTensors.misaligned(arena, F, shapes[0]);
            kernel.compute(inputs, List.of(y));
            return TestTensors.toFloats(y);
        }
    }

    private static final Arena SMALL = Arena.ofAuto();

    private static HostTensor floats(float... values) {
        return TestTensors.floats(SMALL, values, values.length);
    }

    private static HostTensor longs(long... values) {
        return TestTensors.integers(SMALL, I64, values, values.length);
    }

    private static void assertClose(float[] expected, float[] actual) {
        assertEquals(expected.length, actual.length, Arrays.toString(actual));
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], 1e-5f, "element " + i + " of " + Arrays.toString(actual));
        }
    }

    /** Nearest on integer X: the integers run through unchanged (int32 past float's 2^24 included). */
    @Test
    void integerNearestCopiesTheChosenElements() {
        try (Arena arena = Arena.ofConfined()) {
            for (ElementType type : List.of(ElementType.UINT8, ElementType.INT8, ElementType.INT32)) {
                long big = type == ElementType.INT32 ? 16_777_217 : type == ElementType.UINT8 ? 255 : -128;
                CpuKernel k = kernel(node("Resize", 13, Arrays.asList(type, null, F)));
                List<HostTensor> inputs = Arrays.asList(TestTensors.integers(arena, type, new long[] {1, big, 3, 4}, 1, 1, 2, 2),
                        null, floats(1, 1, 2, 1.5f));
                long[][] shapes = k.outputShapes(inputs);
                assertArrayEquals(new long[] {1, 1, 4, 3}, shapes[0]);
                HostTensor y = TestTensors.misaligned(arena, type, shapes[0]);
                k.compute(inputs, List.of(y));
                // half_pixel, round_prefer_floor: rows 0 0 1 1; columns (x + 0.5) / 1.5 - 0.5 = -1/6, 1/2, 7/6 -> 0 0 1
                assertArrayEquals(new long[] {1, 1, big, 1, 1, big, 3, 3, 4, 3, 3, 4}, TestTensors.toIntegers(y), type.toString());
            }
            // tf_crop_and_resize's extrapolation value, truncated toward zero
            CpuKernel crop = kernel(node("Resize", 13, List.of(ElementType.UINT8, F, F, I64),
                    string("coordinate_transformation_mode", "tf_crop_and_resize"),
                    new Attribute.FloatValue("extrapolation_value", 7.9f)));
            List<HostTensor> inputs = List.of(TestTensors.integers(arena, ElementType.UINT8, new long[] {10, 20, 30, 40}, 4),
                    floats(0.5f, 1.5f), floats(), longs(3));
            HostTensor y = TestTensors.misaligned(arena, ElementType.UINT8, crop.outputShapes(inputs)[0]);
            crop.compute(inputs, List.of(y));
            // coordinates 1.5 (rounds to 1 preferring floor), 3, 4.5 (outside)
            assertArrayEquals(new long[] {20, 40, 7}, TestTensors.toIntegers(y));
        }
        NodeSupport linear = CpuKernels.support(node("Resize", 13, Arrays.asList(ElementType.UINT8, null, F),
                string("mode", "linear")));
        assertTrue(linear instanceof NodeSupport.Declined d && d.reason().contains("nearest is"), linear.toString());
    }

    @Test
    void resize10NearestUpsamplesByRepeating() {
        float[] y = run(kernel(node("Resize", 10, List.of(F, F))), new float[] {1, 2, 3, 4}, new long[] {1, 1, 2, 2},
                new long[] {1, 1, 4, 4}, floats(1, 1, 2, 2));
        assertClose(new float[] {1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}, y);
    }

    @Test
    void upsample7TakesItsScalesFromTheAttribute() {
        CpuKernel k = kernel(node("Upsample", 7, List.of(F), new Attribute.FloatList("scales", List.of(1f, 2f))));
        assertClose(new float[] {1, 1, 2, 2, 3, 3, 4, 4}, run(k, new float[] {1, 2, 3, 4}, new long[] {2, 2}, new long[] {2, 4}));
        assertArrayEquals(new long[] {2, 4}, k.outputShapes(new long[][] {{2, 2}})[0]);
        assertThrows(IllegalArgumentException.class, () -> kernel(node("Upsample", 9, List.of(F, F))).outputShapes(
                List.of(TestTensors.floats(SMALL, new float[4], 2, 2), floats(1, 0.5f))), "Upsample never shrinks");
    }

    @Test
    void linearHalfPixelClampsAtTheEdges() {
        // (y + 0.5) / 2 - 0.5 = -0.25, 0.25, 0.75, 1.25
        CpuKernel k = kernel(node("Resize", 13, Arrays.asList(F, null, F), string("mode", "linear")));
        assertClose(new float[] {0, 2.5f, 7.5f, 10}, run(k, new float[] {0, 10}, new long[] {2}, new long[] {4}, null, floats(2)));
    }

    @Test
    void alignCornersWithSizes() {
        CpuKernel k = kernel(node("Resize", 13, Arrays.asList(F, null, null, I64), string("mode", "linear"),
                string("coordinate_transformation_mode", "align_corners")));
        assertClose(new float[] {0, 5, 10}, run(k, new float[] {0, 10}, new long[] {2}, new long[] {3}, null, null, longs(3)));
    }

    @Test
    void eachNearestModeBreaksTiesItsWay() {
        // half_pixel, 4 -> 2: input coordinates 0.5 and 2.5, exactly between two elements
        float[] x = {10, 20, 30, 40};
        Map<String, float[]> expected = Map.of("round_prefer_floor", new float[] {10, 30}, "round_prefer_ceil",
                new float[] {20, 40}, "floor", new float[] {10, 30}, "ceil", new float[] {20, 40});
        expected.forEach((mode, y) -> assertClose(y, run(kernel(node("Resize", 19, Arrays.asList(F, null, null, I64),
                string("nearest_mode", mode))), x, new long[] {4}, new long[] {2}, null, null, longs(2))));
    }

    @Test
    void cubicUsesKeysWeights() {
        // asymmetric, scale 2: y=1 reads x=0.5, taps -1..2 (clamped: 1, 1, 2, 4), weights -3/32, 19/32, 19/32, -3/32
        CpuKernel k = kernel(node("Resize", 13, Arrays.asList(F, null, F), string("mode", "cubic"),
                string("coordinate_transformation_mode", "asymmetric")));
        float[] y = run(k, new float[] {1, 2, 4, 8}, new long[] {4}, new long[] {8}, null, floats(2));
        assertEquals(-3 / 32f + 19 / 32f + 2 * 19 / 32f - 4 * 3 / 32f, y[1], 1e-6f);
        assertEquals(2, y[2], 0f, "whole coordinates read one element");
        // exclude_outside drops the tap at -1 and renormalises the other three
        CpuKernel excluding = kernel(node("Resize", 13, Arrays.asList(F, null, F), string("mode", "cubic"),
                string("coordinate_transformation_mode", "asymmetric"), new Attribute.IntValue("exclude_outside", 1)));
        float[] e = run(excluding, new float[] {1, 2, 4, 8}, new long[] {4}, new long[] {8}, null, floats(2));
        assertEquals((19 / 32f + 2 * 19 / 32f - 4 * 3 / 32f) / (1 + 3 / 32f), e[1], 1e-6f);
    }

    @Test
    void tfCropAndResizeExtrapolatesOutsideTheInput() {
        // roi [0.5, 1.5] of length 4, 3 outputs: coordinates 1.5, 3, 4.5 (outside)
        CpuKernel k = kernel(node("Resize", 13, List.of(F, F, F, I64), string("mode", "linear"),
                string("coordinate_transformation_mode", "tf_crop_and_resize"), new Attribute.FloatValue("extrapolation_value", -1)));
        assertClose(new float[] {15, 30, -1}, run(k, new float[] {0, 10, 20, 30}, new long[] {4}, new long[] {3},
                floats(0.5f, 1.5f), floats(), longs(3)));
    }

    @Test
    void antialiasWidensTheFilterWhenShrinking() {
        // scale 0.5: coordinates 0.5 and 2.5, four taps weighted 1/8, 3/8, 3/8, 1/8
        CpuKernel k = kernel(node("Resize", 18, Arrays.asList(F, null, F), string("mode", "linear"),
                new Attribute.IntValue("antialias", 1)));
        assertClose(new float[] {2.5f, 9.5f}, run(k, new float[] {0, 4, 8, 12}, new long[] {4}, new long[] {2}, null, floats(0.5f)));
        assertTrue(CpuKernels.forNode(node("Resize", 18, List.of(F), new Attribute.IntValue("antialias", 1))).isEmpty(),
                "antialias with nearest");
    }

    @Test
    void axesAndAspectRatioPolicy() {
        Node notLarger = node("Resize", 19, Arrays.asList(F, null, null, I64), new Attribute.IntList("axes", List.of(2L, -1L)),
                string("keep_aspect_ratio_policy", "not_larger"));
        float[] x = {1, 2, 3, 4, 5, 6, 7, 8};
        assertClose(x, run(kernel(notLarger), x, new long[] {1, 1, 2, 4}, new long[] {1, 1, 2, 4}, null, null, longs(4, 4)));
        Node notSmaller = node("Resize", 19, Arrays.asList(F, null, null, I64), new Attribute.IntList("axes", List.of(2L, 3L)),
                string("keep_aspect_ratio_policy", "not_smaller"));
        float[] y = run(kernel(notSmaller), x, new long[] {1, 1, 2, 4}, new long[] {1, 1, 4, 8}, null, null, longs(4, 4));
        assertEquals(1, y[0], 0f);
        assertEquals(8, y[31], 0f);
    }

    @Test
    void float16ResizesInFloat() {
        try (Arena arena = Arena.ofConfined()) {
            HostTensor x = TestTensors.misaligned(arena, ElementType.FLOAT16, 2);
            x.data().setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, 0, Float.floatToFloat16(0));
            x.data().setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, 1, Float.floatToFloat16(10));
            HostTensor y = TestTensors.misaligned(arena, ElementType.FLOAT16, 4);
            CpuKernel k = kernel(node("Resize", 13, Arrays.asList(ElementType.FLOAT16, null, F), string("mode", "linear")));
            k.compute(Arrays.asList(x, null, floats(2)), List.of(y));
            float[] values = new float[4];
            for (int i = 0; i < 4; i++) {
                values[i] = Float.float16ToFloat(y.data().getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i));
            }
            assertClose(new float[] {0, 2.5f, 7.5f, 10}, values);
        }
    }

    @Test
    void malformedResizesAreDeclined() {
        NodeSupport unknownMode = CpuKernels.support(node("Resize", 13, List.of(F), string("mode", "area")));
        assertEquals(DeclineCode.ATTRIBUTE, assertInstanceOf(NodeSupport.Declined.class, unknownMode).code());
        assertTrue(CpuKernels.forNode(node("Resize", 18, List.of(F), string("coordinate_transformation_mode",
                "half_pixel_symmetric"))).isEmpty(), "half_pixel_symmetric arrived in 19");
        assertTrue(CpuKernels.forNode(node("Resize", 19, List.of(ElementType.UINT8), string("mode", "cubic"))).isEmpty(),
                "cubic uint8 images");
        assertTrue(CpuKernels.forNode(node("Resize", 19, List.of(ElementType.INT64))).isEmpty(), "int64");
        CpuKernel k = kernel(node("Resize", 13, Arrays.asList(F, null, F, I64)));
        assertThrows(IllegalArgumentException.class, () -> k.outputShapes(List.of(TestTensors.floats(SMALL, new float[2], 2),
                floats(), floats(2), longs(4))), "scales and sizes both");
    }

    // ---------------------------------------------------------------- GridSample

    private static final float[] SQUARE = {1, 2, 3, 4};

    private static float gridSample(float gx, float gy, Attribute... attributes) {
        return gridSample(16, SQUARE, new long[] {1, 1, 2, 2}, new float[] {gx, gy}, new long[] {1, 1, 1, 2}, attributes)[0];
    }

    private static float[] gridSample(int version, float[] x, long[] xShape, float[] grid, long[] gridShape,
                                      Attribute... attributes) {
        CpuKernel k = kernel(node("GridSample", version, List.of(F, F), attributes));
        long[] yShape = k.outputShapes(new long[][] {xShape, gridShape})[0];
        return run(k, x, xShape, yShape, TestTensors.floats(SMALL, grid, gridShape));
    }

    @Test
    void gridSampleBilinearPadding() {
        assertEquals(2.5f, gridSample(0, 0), 1e-6f, "the centre");
        // (-1, -1) is the top-left corner of the top-left pixel: a quarter of it, the rest padding
        assertEquals(0.25f, gridSample(-1, -1), 1e-6f);
        assertEquals(0.5f, gridSample(1, -1), 1e-6f, "top-right corner: a quarter of 2");
        assertEquals(1f, gridSample(-1, -1, string("padding_mode", "border")), 1e-6f);
        assertEquals(1f, gridSample(-1, -1, string("padding_mode", "reflection")), 1e-6f);
        assertEquals(1f, gridSample(-1, -1, new Attribute.IntValue("align_corners", 1)), 1e-6f, "a pixel centre");
        // reflection outside: grid x 2 is x = 2.5, which reflects at 1.5 to 0.5 (align_corners=0: borders -0.5 and 1.5)
        assertEquals(gridSample(0, 0), gridSample(2, 0, string("padding_mode", "reflection")), 1e-6f);
    }

    @Test
    void gridSampleNearestRoundsHalfToEven() {
        // align_corners=1: x = 0.75 rounds to 1, y = 0.5 rounds to 0
        assertEquals(2f, gridSample(0.5f, 0, string("mode", "nearest"), new Attribute.IntValue("align_corners", 1)), 0f);
        assertEquals(0f, gridSample(-1.5f, 0, string("mode", "nearest")), 0f, "outside reads zero");
    }

    @Test
    void gridSampleCubicAtAPixelCentreReadsThePixel() {
        assertEquals(4f, gridSample(1, 1, string("mode", "bicubic"), new Attribute.IntValue("align_corners", 1)), 1e-6f);
        assertTrue(CpuKernels.forNode(node("GridSample", 20, List.of(F, F), string("mode", "bicubic"))).isEmpty(),
                "version 20 spells it cubic");
    }

    @Test
    void gridSampleVolumetric() {
        // 2x2x2 cube of 0..7; the centre is the mean, 3.5; the grid lists (x, y, z)
        float[] cube = {0, 1, 2, 3, 4, 5, 6, 7};
        float[] y = gridSample(20, cube, new long[] {1, 1, 2, 2, 2}, new float[] {0, 0, 0, 1, -1, -1},
                new long[] {1, 1, 1, 2, 3}, new Attribute.IntValue("align_corners", 1));
        assertClose(new float[] {3.5f, 1f}, y);
        assertThrows(IllegalArgumentException.class, () -> kernel(node("GridSample", 16, List.of(F, F)))
                .outputShapes(new long[][] {{1, 1, 2, 2, 2}, {1, 1, 1, 2, 3}}), "version 16 is 4-D only");
    }
}
