package dev.javaep.spi.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import dev.javaep.spi.ops.SamplingOps.CoordinateTransform;
import dev.javaep.spi.ops.SamplingOps.ResizeAttributes;
import dev.javaep.spi.ops.SamplingOps.ResizeGeometry;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The rules both backends' Resize and GridSample kernels start from. */
class SamplingOpsTest {
    private static ResizeAttributes resize(int version, Attribute... attributes) {
        Map<String, Attribute> map = new java.util.HashMap<>();
        for (Attribute a : attributes) {
            map.put(a.name(), a);
        }
        ValueInfo x = new ValueInfo("x", ElementType.FLOAT, null, true);
        return ResizeAttributes.of(new Node(1, "r", "Resize", "", version, List.of(x), List.of(x), map));
    }

    @Test
    void outputSizesFromScalesTruncateTheFloatProductAndSizesGiveTheScale() {
        ResizeAttributes a = resize(13);
        ResizeGeometry g = ResizeGeometry.of(a, new long[] {1, 3, 5, 7}, null, new float[] {1, 1, 0.6f, 1.5f}, null);
        assertArrayEquals(new long[] {1, 3, 3, 10}, g.output());
        assertArrayEquals(new boolean[] {false, false, true, true}, g.resized());
        ResizeGeometry s = ResizeGeometry.of(a, new long[] {4, 6}, new float[0], new float[0], new long[] {3, 6});
        assertArrayEquals(new float[] {0.75f, 1f}, s.scales());
        assertArrayEquals(new boolean[] {true, false}, s.resized());
        assertThrows(IllegalArgumentException.class, () -> ResizeGeometry.of(a, new long[] {4}, null, null, null));
        assertThrows(IllegalArgumentException.class, () -> ResizeGeometry.of(a, new long[] {4, 4}, null, new float[] {2}, null));
    }

    @Test
    void coordinateTransforms() {
        assertEquals(0.25f, SamplingOps.originalCoordinate(CoordinateTransform.HALF_PIXEL, 1, 2f, 8, 4, 0, 1));
        assertEquals(0f, SamplingOps.originalCoordinate(CoordinateTransform.PYTORCH_HALF_PIXEL, 0, 0.25f, 1, 4, 0, 1));
        assertEquals(-0.5f + 2f, SamplingOps.originalCoordinate(CoordinateTransform.HALF_PIXEL, 0, 0.25f, 1, 4, 0, 1));
        assertEquals(1.5f, SamplingOps.originalCoordinate(CoordinateTransform.ALIGN_CORNERS, 1, 0.5f, 3, 4, 0, 1));
        assertEquals(0.5f, SamplingOps.originalCoordinate(CoordinateTransform.ASYMMETRIC, 1, 2f, 8, 4, 0, 1));
        assertEquals(1f, SamplingOps.originalCoordinate(CoordinateTransform.TF_HALF_PIXEL_FOR_NN, 1, 1.5f, 6, 4, 0, 1));
        assertEquals(4.5f, SamplingOps.originalCoordinate(CoordinateTransform.TF_CROP_AND_RESIZE, 2, 1f, 3, 4, 0.5f, 1.5f));
        assertEquals(3f, SamplingOps.originalCoordinate(CoordinateTransform.TF_CROP_AND_RESIZE, 0, 1f, 1, 4, 0.5f, 1.5f));
        // half_pixel_symmetric: 5 * 0.5 = 2.5 outputs, 2 kept: the 2 are centred on the input (offset 2.5 * 0.2)
        assertEquals(0.5f + 0.5f, SamplingOps.originalCoordinate(CoordinateTransform.HALF_PIXEL_SYMMETRIC, 0, 0.5f, 2, 5, 0, 1),
                1e-6f);
    }

    @Test
    void tapsSumToOne() {
        long[] index = new long[32];
        float[] weight = new float[32];
        for (ResizeAttributes a : List.of(resize(19, new Attribute.StringValue("mode", "linear")),
                resize(19, new Attribute.StringValue("mode", "cubic")),
                resize(19, new Attribute.StringValue("mode", "cubic"), new Attribute.IntValue("antialias", 1)),
                resize(19, new Attribute.StringValue("mode", "linear"), new Attribute.IntValue("antialias", 1)))) {
            for (float scale : new float[] {0.3f, 0.5f, 1f, 2.5f}) {
                for (float x = -1.5f; x < 6; x += 0.37f) {
                    int n = SamplingOps.resizeTaps(a, x, scale, 5, index, weight);
                    assertTrue(n <= a.maxTaps(scale), a + " " + scale);
                    float sum = 0;
                    for (int i = 0; i < n; i++) {
                        sum += weight[i];
                        assertTrue(index[i] >= 0 && index[i] < 5);
                    }
                    assertEquals(1f, sum, 1e-5f, a.mode() + " antialias " + a.antialias() + " scale " + scale + " x " + x);
                }
            }
        }
        float[] cubic = new float[4];
        SamplingOps.cubicCoefficients(0.5f, -0.75f, cubic);
        assertArrayEquals(new float[] {-3 / 32f, 19 / 32f, 19 / 32f, -3 / 32f}, cubic, 1e-7f);
    }

    @Test
    void gridUnnormalisationAndReflection() {
        assertEquals(-0.5f, SamplingOps.unnormalize(-1, 4, false));
        assertEquals(3.5f, SamplingOps.unnormalize(1, 4, false));
        assertEquals(0f, SamplingOps.unnormalize(-1, 4, true));
        assertEquals(3f, SamplingOps.unnormalize(1, 4, true));
        assertEquals(0.5f, SamplingOps.reflect(-1.5f, -0.5f, 3.5f));
        assertEquals(2.5f, SamplingOps.reflect(4.5f, -0.5f, 3.5f));
        assertEquals(3f, SamplingOps.reflect(-5f, 0f, 4f), "twice: -5 -> 5 -> 3");
        assertEquals(0f, SamplingOps.reflect(7f, 0f, 0f), "an axis of one pixel");
    }
}
