package dev.javaep.spi.ops;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import dev.javaep.spi.ops.ConvOps.AutoPad;
import dev.javaep.spi.ops.ConvOps.ConvAttributes;
import dev.javaep.spi.ops.ConvOps.ConvGeometry;
import dev.javaep.spi.ops.PoolOps.PoolAttributes;
import dev.javaep.spi.ops.PoolOps.PoolGeometry;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The shared convolution and pooling rules: pads after auto_pad, output sizes, and what a malformed node is told. */
class ConvOpsTest {
    private static final ElementType F = ElementType.FLOAT;

    static Attribute ints(String name, long... values) {
        List<Long> list = new ArrayList<>();
        for (long v : values) {
            list.add(v);
        }
        return new Attribute.IntList(name, list);
    }

    static Node node(String op, int xRank, Attribute... attributes) {
        Map<String, Attribute> map = new HashMap<>();
        for (Attribute a : attributes) {
            map.put(a.name(), a);
        }
        long[] shape = xRank < 0 ? null : new long[xRank];
        return new Node(1, "n", op, "", 11, List.of(new ValueInfo("x", F, shape, true), new ValueInfo("w", F, shape, true)),
                List.of(new ValueInfo("y", F, null, true)), map);
    }

    private static ConvGeometry conv(long[] x, long[] w, Attribute... attributes) {
        return ConvGeometry.of(ConvAttributes.of(node("Conv", -1, attributes)), x, w, null);
    }

    private static ConvGeometry transposed(long[] x, long[] w, Attribute... attributes) {
        return ConvGeometry.transposed(ConvAttributes.of(node("ConvTranspose", -1, attributes)), x, w, null);
    }

    private static long[] l(long... v) {
        return v;
    }

    @Test
    void convOutputSizesAndPads() {
        ConvGeometry g = conv(l(1, 1, 7, 5), l(1, 1, 3, 3), ints("pads", 1, 0, 1, 0), ints("strides", 2, 2));
        assertArrayEquals(l(1, 1, 4, 2), g.outputShape()); // ONNX's test_conv_with_strides_and_asymmetric_padding
        g = conv(l(1, 1, 5, 5), l(1, 1, 3, 3), new Attribute.StringValue("auto_pad", "SAME_LOWER"), ints("strides", 2, 2));
        assertArrayEquals(l(1, 1, 3, 3), g.outputShape()); // test_conv_with_autopad_same
        assertArrayEquals(l(1, 1), g.padsBegin());
        assertArrayEquals(l(1, 1), g.padsEnd());
        g = conv(l(2, 6, 9), l(4, 3, 4), new Attribute.IntValue("group", 2), ints("dilations", 2), ints("strides", 3));
        assertArrayEquals(l(2, 4, 1), g.outputShape()); // (9 - 7) / 3 + 1
        assertEquals(3, g.inChannelsPerGroup());
        assertEquals(2, g.outChannelsPerGroup());
        // SAME with a kernel smaller than the stride needs no padding (the formula would give -1)
        g = conv(l(1, 1, 5), l(1, 1, 1), new Attribute.StringValue("auto_pad", "SAME_UPPER"), ints("strides", 3));
        assertArrayEquals(l(1, 1, 2), g.outputShape());
        assertArrayEquals(l(0), g.padsEnd());
    }

    @Test
    void convTransposeOutputSizes() {
        // test_convtranspose_pads: strides 3 x 2, pads 1 2 1 2 on 3 x 3 with a 3 x 3 kernel
        assertArrayEquals(l(1, 2, 7, 3), transposed(l(1, 1, 3, 3), l(1, 2, 3, 3), ints("strides", 3, 2),
                ints("pads", 1, 2, 1, 2)).outputShape());
        // test_convtranspose_output_shape / _kernel_shape with output_padding
        assertArrayEquals(l(1, 2, 10, 8), transposed(l(1, 1, 3, 3), l(1, 2, 3, 3), ints("strides", 3, 2),
                ints("output_padding", 1, 1)).outputShape());
        ConvGeometry g = transposed(l(1, 1, 3, 3), l(1, 2, 3, 3), ints("strides", 3, 2), ints("output_shape", 10, 8),
                ints("output_padding", 1, 1));
        assertArrayEquals(l(0, 0), g.padsBegin());
        // test_convtranspose_autopad_same: full 7, target 6, the extra at the end for SAME_UPPER
        g = transposed(l(1, 1, 3, 3), l(1, 2, 3, 3), new Attribute.StringValue("auto_pad", "SAME_UPPER"), ints("strides", 2, 2));
        assertArrayEquals(l(1, 2, 6, 6), g.outputShape());
        assertArrayEquals(l(0, 0), g.padsBegin());
        assertArrayEquals(l(1, 1), g.padsEnd());
        g = transposed(l(1, 1, 3, 3), l(1, 2, 3, 3), new Attribute.StringValue("auto_pad", "SAME_LOWER"), ints("strides", 2, 2));
        assertArrayEquals(l(1, 1), g.padsBegin());
        // groups: M = W[1] * group
        assertArrayEquals(l(1, 6, 5, 5), transposed(l(1, 4, 3, 3), l(4, 3, 3, 3), new Attribute.IntValue("group", 2)).outputShape());
        // dilations: (3 - 1) + (3 - 1) * 2 + 1 = 7
        assertArrayEquals(l(1, 1, 7, 7), transposed(l(1, 1, 3, 3), l(1, 1, 3, 3), ints("dilations", 2, 2)).outputShape());
    }

    @Test
    void poolOutputSizes() {
        PoolAttributes a = PoolAttributes.of(node("MaxPool", 4, ints("kernel_shape", 3, 3), ints("strides", 2, 2),
                new Attribute.IntValue("ceil_mode", 1)));
        assertArrayEquals(l(1, 1, 2, 2), PoolGeometry.of(a, l(1, 1, 4, 4)).outputShape()); // test_maxpool_2d_ceil
        a = PoolAttributes.of(node("MaxPool", 4, ints("kernel_shape", 1, 1), ints("strides", 2, 2),
                new Attribute.IntValue("ceil_mode", 1)));
        assertArrayEquals(l(1, 1, 1, 1), PoolGeometry.of(a, l(1, 1, 2, 2)).outputShape()); // ..._reduce_by_one
        a = PoolAttributes.of(node("AveragePool", 4, ints("kernel_shape", 3, 3), new Attribute.StringValue("auto_pad", "SAME_UPPER"),
                ints("strides", 2, 2)));
        PoolGeometry g = PoolGeometry.of(a, l(1, 1, 32, 31));
        assertArrayEquals(l(1, 1, 16, 16), g.outputShape());
        assertArrayEquals(l(0, 1), g.padsBegin()); // totals 1 and 2
        assertArrayEquals(l(1, 1), g.padsEnd());
        a = PoolAttributes.of(node("MaxPool", 4, ints("kernel_shape", 2, 2), ints("dilations", 2, 2)));
        assertArrayEquals(l(1, 3, 2, 2), PoolGeometry.of(a, l(1, 3, 4, 4)).outputShape()); // test_maxpool_2d_dilations
        assertArrayEquals(l(2, 3, 1, 1, 1), PoolGeometry.global("GlobalAveragePool", l(2, 3, 4, 5, 6)).outputShape());
    }

    @Test
    void malformedAttributesAreNamed() {
        assertMessage("auto_pad 'SAME'", () -> ConvAttributes.of(node("Conv", 4, new Attribute.StringValue("auto_pad", "SAME"))));
        assertMessage("group is 0", () -> ConvAttributes.of(node("Conv", 4, new Attribute.IntValue("group", 0))));
        assertMessage("strides [1, 0]", () -> ConvAttributes.of(node("Conv", 4, ints("strides", 1, 0))));
        assertMessage("pads [0, -1, 0, 0]", () -> ConvAttributes.of(node("Conv", 4, ints("pads", 0, -1, 0, 0))));
        assertMessage("odd length", () -> ConvAttributes.of(node("Conv", 4, ints("pads", 1, 1, 1))));
        assertMessage("dilations [1, 1, 1]", () -> ConvAttributes.of(node("Conv", 4, ints("dilations", 1, 1, 1))));
        assertMessage("rank 2", () -> ConvAttributes.of(node("Conv", 2)));
        assertMessage("output_shape [5, 5, 5]", () -> ConvAttributes.of(node("ConvTranspose", 4, ints("output_shape", 5, 5, 5))));
        assertMessage("X has 4 channels", () -> conv(l(1, 4, 5, 5), l(2, 3, 3, 3)));
        assertMessage("not a multiple of group 2", () -> conv(l(1, 4, 5, 5), l(3, 2, 3, 3), new Attribute.IntValue("group", 2)));
        assertMessage("kernel_shape [2, 2] differs", () -> conv(l(1, 1, 5, 5), l(1, 1, 3, 3), ints("kernel_shape", 2, 2)));
        assertMessage("the padded input has 2", () -> conv(l(1, 1, 2, 5), l(1, 1, 3, 3)));
        assertMessage("B has shape [3]", () -> ConvGeometry.of(ConvAttributes.of(node("Conv", 4)), l(1, 1, 5, 5), l(2, 1, 3, 3), l(3)));
        assertMessage("W [2, 1, 3, 3] is for 2 input channels", () -> transposed(l(1, 1, 5, 5), l(2, 1, 3, 3)));
        assertMessage("crop all 5", () -> transposed(l(1, 1, 3, 3), l(1, 1, 3, 3), ints("pads", 3, 0, 2, 0)));
        assertMessage("kernel_shape is required", () -> PoolAttributes.of(node("MaxPool", 4)));
        assertMessage("has 2 spatial axes but X has rank 3", () -> PoolAttributes.of(node("MaxPool", 3, ints("kernel_shape", 2, 2))));
        assertMessage("pads [1, 1] has 2 values", () -> PoolAttributes.of(node("MaxPool", 4, ints("kernel_shape", 2, 2), ints("pads", 1, 1))));
        assertMessage("the window covers 5", () -> PoolGeometry.of(PoolAttributes.of(node("MaxPool", 4, ints("kernel_shape", 3, 3),
                ints("dilations", 2, 2))), l(1, 1, 4, 9)));
    }

    @Test
    void autoPadSplitsTheOddPaddingByMode() {
        assertArrayEquals(l(1, 2), AutoPad.SAME_UPPER.split(3));
        assertArrayEquals(l(2, 1), AutoPad.SAME_LOWER.split(3));
        assertArrayEquals(l(2, 1), AutoPad.NOTSET.split(3));
    }

    private static void assertMessage(String expected, org.junit.jupiter.api.function.Executable call) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, call);
        assertTrue(e.getMessage().contains(expected), () -> "'" + e.getMessage() + "' should contain '" + expected + "'");
    }
}
