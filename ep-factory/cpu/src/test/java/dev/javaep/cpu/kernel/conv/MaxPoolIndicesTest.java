package dev.javaep.cpu.kernel.conv;

import static dev.javaep.cpu.kernel.conv.KernelRun.integer;
import static dev.javaep.cpu.kernel.conv.KernelRun.ints;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ValueInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** MaxPool's Indices output against the ONNX examples (worked by hand), on two planes so the plane offset shows. */
class MaxPoolIndicesTest {
    private static final ElementType F = ElementType.FLOAT;

    static Node node(int version, ElementType type, long[] x, Attribute... attributes) {
        Map<String, Attribute> map = new HashMap<>();
        for (Attribute a : attributes) {
            map.put(a.name(), a);
        }
        return new Node(1, "maxpool", "MaxPool", "", version, List.of(new ValueInfo("x", type, x, true)),
                List.of(new ValueInfo("y", type, null, true), new ValueInfo("i", ElementType.INT64, null, true)), map);
    }

    /** Runs the node on X = 1, 2, 3, ... of {@code shape}; returns Y's values and the indices. */
    private static Object[] run(Node node, ElementType type, long[] shape, long[] expectedShape) {
        CpuKernel kernel = KernelRun.kernel(node);
        try (Arena arena = Arena.ofConfined()) {
            float[] values = new float[(int) ReferenceLoops.product(shape)];
            IntStream.range(0, values.length).forEach(i -> values[i] = i + 1);
            HostTensor x = KernelRun.tensor(arena, type, values, shape);
            long[][] shapes = kernel.outputShapes(new long[][] {shape});
            assertArrayEquals(expectedShape, shapes[0]);
            assertArrayEquals(expectedShape, shapes[1]);
            HostTensor y = TestTensors.misaligned(arena, type, shapes[0]);
            HostTensor indices = TestTensors.misaligned(arena, ElementType.INT64, shapes[1]);
            indices.data().fill((byte) 0x7b);
            kernel.compute(List.of(x), List.of(y, indices));
            long[] i = new long[(int) indices.elementCount()];
            for (int k = 0; k < i.length; k++) {
                i[k] = indices.data().getAtIndex(ValueLayout.JAVA_LONG_UNALIGNED, k);
            }
            return new Object[] {KernelRun.values(y), i};
        }
    }

    private static float[] plus(float[] v, float d) {
        float[] r = v.clone();
        for (int i = 0; i < r.length; i++) {
            r[i] += d;
        }
        return r;
    }

    private static long[] plus(long[] v, long d) {
        return java.util.Arrays.stream(v).map(x -> x + d).toArray();
    }

    private static float[] concat(float[] a, float[] b) {
        float[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    private static long[] concat(long[] a, long[] b) {
        long[] r = java.util.Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    @Test
    void rowMajorIndicesWithPads() {
        // ONNX's maxpool_with_argmax_2d_precomputed_pads: X 5 x 5 of 1..25, kernel 5 x 5, pads 2: each window's
        // maximum is its bottom-right tap inside X
        float[] y0 = {13, 14, 15, 15, 15, 18, 19, 20, 20, 20, 23, 24, 25, 25, 25, 23, 24, 25, 25, 25, 23, 24, 25, 25, 25};
        long[] i0 = {12, 13, 14, 14, 14, 17, 18, 19, 19, 19, 22, 23, 24, 24, 24, 22, 23, 24, 24, 24, 22, 23, 24, 24, 24};
        for (int version : new int[] {8, 12, 22}) {
            Object[] out = run(node(version, F, new long[] {1, 2, 5, 5}, ints("kernel_shape", 5, 5),
                    ints("pads", 2, 2, 2, 2)), F, new long[] {1, 2, 5, 5}, new long[] {1, 2, 5, 5});
            assertArrayEquals(concat(y0, plus(y0, 25)), (float[]) out[0]);
            assertArrayEquals(concat(i0, plus(i0, 25)), (long[]) out[1], "MaxPool-" + version);
        }
    }

    @Test
    void columnMajorIndicesWithStorageOrder1() {
        // ONNX's maxpool_with_argmax_2d_precomputed_strides: kernel 2 x 2, strides 2; the maxima 7, 9, 17, 19 sit at
        // (h, w) = (1, 1), (1, 3), (3, 1), (3, 3), column-major h + 5 w: 6, 16, 8, 18
        Object[] out = run(node(10, F, new long[] {2, 1, 5, 5}, ints("kernel_shape", 2, 2), ints("strides", 2, 2),
                integer("storage_order", 1)), F, new long[] {2, 1, 5, 5}, new long[] {2, 1, 2, 2});
        assertArrayEquals(new float[] {7, 9, 17, 19, 32, 34, 42, 44}, (float[]) out[0]);
        assertArrayEquals(new long[] {6, 16, 8, 18, 31, 41, 33, 43}, (long[]) out[1]);
    }

    @Test
    void threeSpatialAxesAndEightBitValues() {
        // X 2 x 2 x 3 (D1, D2, D3) of 1..12, kernel 2 x 2 x 2, stride 1: the maxima at (1, 1, 1) and (1, 1, 2);
        // row-major 9 + 1 + 1 = 10 and 11; column-major i1 + 2 i2 + 4 i3 = 7 and 11
        long[] x = {1, 1, 2, 2, 3};
        Attribute kernel = ints("kernel_shape", 2, 2, 2);
        Object[] rows = run(node(12, ElementType.UINT8, x, kernel), ElementType.UINT8, x, new long[] {1, 1, 1, 1, 2});
        assertArrayEquals(new float[] {11, 12}, (float[]) rows[0]);
        assertArrayEquals(new long[] {10, 11}, (long[]) rows[1]);
        Object[] columns = run(node(12, ElementType.INT8, x, kernel, integer("storage_order", 1)), ElementType.INT8, x,
                new long[] {1, 1, 1, 1, 2});
        assertArrayEquals(new long[] {7, 11}, (long[]) columns[1]);
    }

    @Test
    void indicesNeedVersion8AndAValidStorageOrder() {
        NodeSupport version1 = CpuKernels.support(node(1, F, new long[] {1, 1, 4, 4}, ints("kernel_shape", 2, 2)));
        assertEquals(DeclineCode.ARITY, assertInstanceOf(NodeSupport.Declined.class, version1).code());
        NodeSupport order2 = CpuKernels.support(node(12, F, new long[] {1, 1, 4, 4}, ints("kernel_shape", 2, 2),
                integer("storage_order", 2)));
        assertEquals(DeclineCode.ATTRIBUTE, assertInstanceOf(NodeSupport.Declined.class, order2).code());
    }
}
