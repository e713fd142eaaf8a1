package dev.javaep.cpu.kernel.normalization;

import static dev.javaep.cpu.kernel.TestNodes.kernel;
import static dev.javaep.cpu.kernel.TestNodes.node;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.HostTensor;
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
import org.junit.jupiter.api.Test;

/** The normalisation kernels against values worked out by hand from the ONNX formulas. */
class NormalizationKernelsTest {
    private static final ElementType F = ElementType.FLOAT;

    static List<ElementType> times(ElementType t, int n) {
        return java.util.Collections.nCopies(n, t);
    }

    private static float[] run(CpuKernel kernel, Arena arena, float[][] values, long[][] shapes) {
        return runAll(kernel, arena, values, shapes)[0];
    }

    /** Runs the kernel on float32 inputs (null: omitted) and returns each output's values. */
    private static float[][] runAll(CpuKernel kernel, Arena arena, float[][] values, long[][] shapes) {
        List<HostTensor> inputs = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            inputs.add(values[i] == null ? null : TestTensors.floats(arena, values[i], shapes[i]));
        }
        long[][] outShapes = kernel.outputShapes(inputs);
        List<HostTensor> outputs = new ArrayList<>();
        for (long[] s : outShapes) {
            outputs.add(TestTensors.misaligned(arena, F, s));
        }
        kernel.compute(inputs, outputs);
        return outputs.stream().map(TestTensors::toFloats).toArray(float[][]::new);
    }

    private static void assertClose(float[] expected, float[] actual, float tolerance) {
        assertEquals(expected.length, actual.length);
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], tolerance, "element " + i + " of " + Arrays.toString(actual));
        }
    }

    @Test
    void batchNormalizationPerChannel() {
        Node node = node("BatchNormalization", 15, times(F, 5), List.of(F), new Attribute.FloatValue("epsilon", 0f));
        try (Arena arena = Arena.ofConfined()) {
            // channel 0: (x - 1) / 2 * 1 + 0; channel 1: (x - 3) / 1 * 2 + 1
            float[] y = run(kernel(node), arena, new float[][] {{1, 2, 3, 4, 5, 6, 7, 8}, {1, 2}, {0, 1}, {1, 3}, {4, 1}},
                    new long[][] {{2, 2, 2}, {2}, {2}, {2}, {2}});
            assertClose(new float[] {0, 0.5f, 1, 3, 2, 2.5f, 9, 11}, y, 1e-6f);
        }
    }

    @Test
    void batchNormalizationNonSpatialBeforeVersion9HasOneParameterPerPosition() {
        Node node = node("BatchNormalization", 7, times(F, 5), List.of(F), new Attribute.IntValue("spatial", 0),
                new Attribute.FloatValue("epsilon", 0f));
        try (Arena arena = Arena.ofConfined()) {
            // X (2, 1, 2): positions 0 and 1 have their own parameters, shared by both instances
            float[] y = run(kernel(node), arena, new float[][] {{1, 2, 3, 4}, {1, 10}, {0, 1}, {0, 2}, {1, 4}},
                    new long[][] {{2, 1, 2}, {1, 2}, {1, 2}, {1, 2}, {1, 2}});
            assertClose(new float[] {1, 1, 3, 11}, y, 1e-6f);
        }
    }

    @Test
    void batchNormalizationTrainingUsesTheBatchStatisticsAndBlendsTheRunningOnes() {
        Node node = node("BatchNormalization", 15, times(F, 5), List.of(F, F, F), new Attribute.IntValue("training_mode", 1),
                new Attribute.FloatValue("epsilon", 0f));
        try (Arena arena = Arena.ofConfined()) {
            // X (2, 2, 2): channel 0 holds 1, 2, 5, 6 (mean 3.5), channel 1 holds 3, 4, 7, 8 (mean 5.5); both have
            // population variance 4.25, so y = (x - mean) / sqrt(4.25) * scale + B
            float[][] out = runAll(kernel(node), arena,
                    new float[][] {{1, 2, 3, 4, 5, 6, 7, 8}, {1, 2}, {0, 1}, {1, 3}, {4, 1}},
                    new long[][] {{2, 2, 2}, {2}, {2}, {2}, {2}});
            assertClose(new float[] {-1.2126781f, -0.7276069f, -1.4253563f, -0.4552138f,
                    0.7276069f, 1.2126781f, 2.4552138f, 3.4253563f}, out[0], 1e-6f);
            // running = input * 0.9 (default momentum) + batch * 0.1
            assertClose(new float[] {1.25f, 3.25f}, out[1], 1e-6f);
            assertClose(new float[] {4.025f, 1.325f}, out[2], 1e-6f);
        }
    }

    @Test
    void batchNormalizationTrainingWithYAloneAndItsMomentum() {
        Node node = node("BatchNormalization", 14, times(F, 5), Arrays.asList(F, null, F),
                new Attribute.IntValue("training_mode", 1), new Attribute.FloatValue("momentum", 0.5f),
                new Attribute.FloatValue("epsilon", 0f));
        try (Arena arena = Arena.ofConfined()) {
            // one channel of 2, 4: mean 3, variance 1
            float[][] out = runAll(kernel(node), arena, new float[][] {{2, 4}, {1}, {0}, {1}, {3}},
                    new long[][] {{1, 1, 2}, {1}, {1}, {1}, {1}});
            assertClose(new float[] {-1, 1}, out[0], 1e-6f);
            assertClose(new float[] {2}, out[2], 1e-6f);
        }
    }

    @Test
    void batchNormalizationStatisticsOutputsOutsideVersion14sTrainingModeAreDeclined() {
        NodeSupport inference = CpuKernels.support(node("BatchNormalization", 15, times(F, 5), List.of(F, F, F)));
        assertEquals(DeclineCode.ATTRIBUTE, assertInstanceOf(NodeSupport.Declined.class, inference).code());
        NodeSupport fiveOutputs = CpuKernels.support(node("BatchNormalization", 9, times(F, 5), times(F, 5)));
        assertTrue(((NodeSupport.Declined) fiveOutputs).reason().contains("training"), fiveOutputs.toString());
        NodeSupport doubleMean = CpuKernels.support(node("BatchNormalization", 15,
                List.of(F, F, F, ElementType.DOUBLE, ElementType.DOUBLE), List.of(F)));
        assertTrue(((NodeSupport.Declined) doubleMean).reason().contains("T2 is DOUBLE"), doubleMean.toString());
    }

    @Test
    void instanceNormalizationNormalisesEachChannelOfEachInstance() {
        Node node = node("InstanceNormalization", 6, times(F, 3), List.of(F), new Attribute.FloatValue("epsilon", 0f));
        try (Arena arena = Arena.ofConfined()) {
            // each (n, c) row [a, b] becomes [-1, 1] (mean (a+b)/2, std |b-a|/2), then * scale[c] + B[c]
            float[] y = run(kernel(node), arena, new float[][] {{1, 3, 10, 20, 0, 4, -1, -2}, {1, 2}, {0, 5}},
                    new long[][] {{2, 2, 2}, {2}, {2}});
            assertClose(new float[] {-1, 1, 3, 7, -1, 1, 7, 3}, y, 1e-6f);
        }
    }

    @Test
    void layerNormalizationWithItsStatisticsOutputs() {
        Node node = node("LayerNormalization", 17, times(F, 3), List.of(F, F, F), new Attribute.IntValue("axis", 1),
                new Attribute.FloatValue("epsilon", 0f));
        try (Arena arena = Arena.ofConfined()) {
            // rows [1,2,3,4] (mean 2.5, var 1.25) and [2,2,2,6] (mean 3, var 3)
            float[][] out = runAll(kernel(node), arena, new float[][] {{1, 2, 3, 4, 2, 2, 2, 6}, {1, 1, 2, 2}, {0, 0, 0, 1}},
                    new long[][] {{2, 2, 2}, {2, 2}, {2, 2}});
            double s1 = Math.sqrt(1.25);
            double s2 = Math.sqrt(3);
            assertClose(new float[] {(float) (-1.5 / s1), (float) (-0.5 / s1), (float) (2 * 0.5 / s1), (float) (2 * 1.5 / s1 + 1),
                    (float) (-1 / s2), (float) (-1 / s2), (float) (-2 / s2), (float) (2 * 3 / s2 + 1)}, out[0], 1e-6f);
            assertClose(new float[] {2.5f, 3}, out[1], 1e-6f);
            assertClose(new float[] {(float) (1 / s1), (float) (1 / s2)}, out[2], 1e-6f);
            assertArrayEquals(new long[] {2, 1, 1}, kernel(node).outputShapes(new long[][] {{2, 2, 2}, {2, 2}, {2, 2}})[1]);
        }
    }

    @Test
    void layerNormalizationWithoutBiasOrStatisticsAndAScalarScale() {
        Node node = node("LayerNormalization", 17, Arrays.asList(F, F, null), List.of(F), new Attribute.FloatValue("epsilon", 0f));
        try (Arena arena = Arena.ofConfined()) {
            float[] y = run(kernel(node), arena, new float[][] {{1, 3, 5, 9}, {2}, null}, new long[][] {{2, 2}, {1}, null});
            assertClose(new float[] {-2, 2, -2, 2}, y, 1e-6f);
        }
        assertTrue(CpuKernels.forNode(node("LayerNormalization", 17, times(F, 3), List.of(F, ElementType.BFLOAT16))).isEmpty(),
                "a bfloat16 Mean");
        assertTrue(CpuKernels.forNode(node("LayerNormalization", 17, times(F, 3), List.of(F),
                new Attribute.IntValue("stash_type", 11))).isEmpty(), "statistics in double");
    }

    @Test
    void groupNormalization18ScalesPerGroupAnd21PerChannel() {
        // X (1, 4, 1): groups {0, 1} and {2, 3}; each group [a, b] normalises to [-1, 1]
        float[] x = {1, 3, 4, 8};
        long[][] shapes18 = {{1, 4, 1}, {2}, {2}};
        try (Arena arena = Arena.ofConfined()) {
            Node v18 = node("GroupNormalization", 18, times(F, 3), List.of(F), new Attribute.IntValue("num_groups", 2),
                    new Attribute.FloatValue("epsilon", 0f));
            assertClose(new float[] {-2, 2, 7, 13}, run(kernel(v18), arena, new float[][] {x, {2, 3}, {0, 10}}, shapes18), 1e-6f);
            Node v21 = node("GroupNormalization", 21, times(F, 3), List.of(F), new Attribute.IntValue("num_groups", 2),
                    new Attribute.FloatValue("epsilon", 0f));
            assertClose(new float[] {-1, 2, 7, 14}, run(kernel(v21), arena,
                    new float[][] {x, {1, 2, 3, 4}, {0, 0, 10, 10}}, new long[][] {{1, 4, 1}, {4}, {4}}), 1e-6f);
            assertThrows(IllegalArgumentException.class, () -> kernel(v21).outputShapes(shapes18), "per-group scale at 21");
        }
        assertTrue(CpuKernels.forNode(node("GroupNormalization", 21, times(F, 3), List.of(F))).isEmpty(), "no num_groups");
    }

    @Test
    void float16IsComputedInFloatAndRoundedOnce() {
        Node node = node("InstanceNormalization", 22, times(ElementType.FLOAT16, 3), List.of(ElementType.FLOAT16),
                new Attribute.FloatValue("epsilon", 0f));
        try (Arena arena = Arena.ofConfined()) {
            HostTensor x = half(arena, new float[] {1, 2, 3, 4}, 1, 1, 4);
            HostTensor y = TestTensors.misaligned(arena, ElementType.FLOAT16, 1, 1, 4);
            kernel(node).compute(List.of(x, half(arena, new float[] {1}, 1), half(arena, new float[] {0.5f}, 1)), List.of(y));
            double s = Math.sqrt(1.25);
            for (int i = 0; i < 4; i++) {
                float expected = Float.float16ToFloat(Float.floatToFloat16((float) ((i + 1 - 2.5) / s + 0.5)));
                assertEquals(expected, Float.float16ToFloat(y.data().getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i)), 0f);
            }
        }
    }

    @Test
    void optionalOutputsAreOptionalAndRequiredOnesAreNot() {
        NodeSupport twoOutputs = CpuKernels.support(node("LayerNormalization", 17, times(F, 3), Arrays.asList(F, null, F)));
        assertInstanceOf(NodeSupport.Compiled.class, twoOutputs, twoOutputs.toString());
        NodeSupport noY = CpuKernels.support(node("LayerNormalization", 17, times(F, 3), Arrays.asList(null, F)));
        assertEquals(DeclineCode.ARITY, assertInstanceOf(NodeSupport.Declined.class, noY).code());
    }

    static HostTensor half(Arena arena, float[] values, long... shape) {
        HostTensor t = TestTensors.misaligned(arena, ElementType.FLOAT16, shape);
        for (int i = 0; i < values.length; i++) {
            t.data().setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, Float.floatToFloat16(values[i]));
        }
        return t;
    }
}
