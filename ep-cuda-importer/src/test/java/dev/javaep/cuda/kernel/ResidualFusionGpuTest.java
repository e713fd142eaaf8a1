package dev.javaep.cuda.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Graph;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A ResNet basic block on GPU 0 (Conv 3x3 → Relu → Conv 3x3 → Add(block input) → Relu), float32 and float16, grouped
 * convolutions too, on cuDNN and on the direct kernels: the group as {@code javaep.cuda.fusion} on (Conv+Relu, and
 * Conv+Add+Relu with the residual, where cuDNN's {@code cudnnConvolutionBiasActivationForward} may run either),
 * {@code epilogue} (the fusion before residuals: Conv+Relu only) and {@code off}, each against a float64 reference computed here from
 * the same (rounded) inputs: float32 (no TF32) within 1e-4 of max|reference|, float16 within 1e-2. Then the fused group
 * replayed as a CUDA graph equals its eager Run, and {@code javaep.cuda.profileSteps} reports the fused step.
 */
@Tag("gpu")
class ResidualFusionGpuTest extends GpuTest {
    private static final long C = 8;
    private static final long[] X = {2, C, 12, 12};

    private static ValueInfo value(String name, ElementType type, long... shape) {
        return new ValueInfo(name, type, shape, true);
    }

    private static Node conv(String x, String w, String b, String y, ElementType type, long group) {
        List<Long> ones = List.of(1L, 1L, 1L, 1L);
        return new Node(y.hashCode(), y, "Conv", "", 11, List.of(value(x, type, X), value(w, type, C, C / group, 3, 3),
                value(b, type, C)), List.of(value(y, type, X)),
                Map.of("pads", new Attribute.IntList("pads", ones), "group", new Attribute.IntValue("group", group)));
    }

    private static Node node(String op, ElementType type, String y, String... inputs) {
        return new Node(y.hashCode(), y, op, "", 14, java.util.Arrays.stream(inputs).map(i -> value(i, type, X)).toList(),
                List.of(value(y, type, X)), Map.of());
    }

    private CudaSubgraphProgram compile(ElementType type, long group, String conv, String fusion, boolean graphs,
                                        boolean profile) {
        Graph block = new Graph("basic_block", List.of(conv("x", "w1", "b1", "c1", type, group), node("Relu", type, "r1", "c1"),
                conv("r1", "w2", "b2", "c2", type, group), node("Add", type, "a", "c2", "x"), node("Relu", type, "y", "a")),
                List.of(), List.of());
        long[] w = {C, C / group, 3, 3};
        Node fused = new Node(1, "block_" + type + "_" + group + "_" + conv, "JavaCuda_fused", "javaep", 1,
                List.of(value("x", type, X), value("w1", type, w), value("b1", type, C), value("w2", type, w),
                        value("b2", type, C)), List.of(value("y", type, X)), Map.of());
        return SystemProperties.with(Map.of("javaep.cuda.conv", conv, CudaSubgraphProgram.FUSION_PROPERTY, fusion,
                        CudaSubgraphProgram.GRAPHS_PROPERTY, graphs ? "on" : "off", "javaep.cuda.conv.tf32", "false",
                        CudaStepBreakdown.PROPERTY, Boolean.toString(profile)),
                () -> CudaSubgraphProgram.compile(block, fused, device));
    }

    private static float[] random(Random r, int n, float scale) {
        float[] v = new float[n];
        for (int i = 0; i < v.length; i++) {
            v[i] = Float.float16ToFloat(Float.floatToFloat16((r.nextFloat() * 2 - 1) * scale)); // exact in float16 too
        }
        return v;
    }

    private static int count(long... shape) {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        return (int) n;
    }

    /** 3x3, pad 1, stride 1 convolution of [N, C, H, W] with {@code group} groups, plus the bias, in double. */
    private static double[] convolve(double[] x, float[] w, float[] b, long group) {
        int n = (int) X[0];
        int h = (int) X[2];
        int wd = (int) X[3];
        int perGroup = (int) (C / group);
        double[] y = new double[x.length];
        for (int i = 0; i < n; i++) {
            for (int m = 0; m < C; m++) {
                int g = m / perGroup;
                for (int oy = 0; oy < h; oy++) {
                    for (int ox = 0; ox < wd; ox++) {
                        double acc = b[m];
                        for (int c = 0; c < perGroup; c++) {
                            int channel = g * perGroup + c;
                            for (int ky = 0; ky < 3; ky++) {
                                for (int kx = 0; kx < 3; kx++) {
                                    int iy = oy + ky - 1;
                                    int ix = ox + kx - 1;
                                    if (iy >= 0 && iy < h && ix >= 0 && ix < wd) {
                                        acc += x[((i * (int) C + channel) * h + iy) * wd + ix]
                                                * w[((m * perGroup + c) * 3 + ky) * 3 + kx];
                                    }
                                }
                            }
                        }
                        y[((i * (int) C + m) * h + oy) * wd + ox] = acc;
                    }
                }
            }
        }
        return y;
    }

    /** The block in double: relu(conv2(relu(conv1(x))) + x). */
    private static double[] reference(float[][] inputs, long group) {
        double[] x = new double[inputs[0].length];
        for (int i = 0; i < x.length; i++) {
            x[i] = inputs[0][i];
        }
        double[] r1 = convolve(x, inputs[1], inputs[2], group);
        for (int i = 0; i < r1.length; i++) {
            r1[i] = Math.max(0, r1[i]);
        }
        double[] y = convolve(r1, inputs[3], inputs[4], group);
        for (int i = 0; i < y.length; i++) {
            y[i] = Math.max(0, y[i] + x[i]);
        }
        return y;
    }

    private List<float[]> run(CudaSubgraphProgram program, ElementType type, float[][] inputs, long group, int runs) {
        long[] w = {C, C / group, 3, 3};
        return outputsOfRuns(program, type, inputs, new long[][] {X, w, {C}, w, {C}}, runs);
    }

    private static void assertClose(double[] expected, float[] actual, double tolerance, String what) {
        double scale = 0;
        double worst = 0;
        for (int i = 0; i < expected.length; i++) {
            scale = Math.max(scale, Math.abs(expected[i]));
            worst = Math.max(worst, Math.abs(expected[i] - actual[i]));
        }
        System.out.printf("%s: max|diff| / max|reference| = %.2e%n", what, worst / scale);
        assertTrue(worst <= tolerance * scale, what + ": max|diff| " + worst + " > " + tolerance + " * " + scale);
    }

    @ParameterizedTest(name = "{0}, group {1}, {2}")
    @CsvSource({"FLOAT, 1, cudnn", "FLOAT16, 1, cudnn", "FLOAT, 2, cudnn", "FLOAT16, 2, cudnn", "FLOAT, 1, direct",
            "FLOAT16, 1, direct"})
    void fusedEpilogueAndUnfusedMatchTheReference(ElementType type, long group, String conv) {
        Random random = new Random(11);
        int weights = count(C, C / group, 3, 3);
        float[][] inputs = {random(random, count(X), 1f), random(random, weights, 0.3f), random(random, (int) C, 0.5f),
                random(random, weights, 0.3f), random(random, (int) C, 0.5f)};
        double[] expected = reference(inputs, group);
        double tolerance = type == ElementType.FLOAT ? 1e-4 : 1e-2;
        String what = type + " group " + group + " on " + conv;
        int[] steps = {2, 2, 4, 5}; // epilogue: Conv+Relu, Conv, Add, Relu
        String[] fusions = {"on", "cudnn", "epilogue", "off"};
        for (int f = 0; f < fusions.length; f++) {
            CudaSubgraphProgram program = compile(type, group, conv, fusions[f], false, false);
            try {
                assertEquals(steps[f], program.stepCount(), what + ", fusion " + fusions[f]);
                assertClose(expected, run(program, type, inputs, group, 1).getFirst(), tolerance,
                        what + ", fusion " + fusions[f]);
            } finally {
                program.close();
            }
        }
        CudaSubgraphProgram replayed = compile(type, group, conv, "on", true, false);
        CudaSubgraphProgram eager = compile(type, group, conv, "on", false, false);
        try {
            float[] once = run(eager, type, inputs, group, 1).getFirst();
            List<float[]> runs = run(replayed, type, inputs, group, 5);
            for (int i = 0; i < runs.size(); i++) {
                assertArrayEquals(once, runs.get(i), what + ": Run " + (i + 1) + " (1 eager, 2 captured, 3.. replayed)");
            }
            assertNull(replayed.graphsGaveUp(), what);
            assertArrayEquals(new long[] {1, 3}, replayed.graphCounts(), what + ": captures, replays");
        } finally {
            replayed.close();
            eager.close();
        }
        CudaStepBreakdown.reset();
        CudaSubgraphProgram profiled = compile(type, group, conv, "on", true, true);
        try {
            run(profiled, type, inputs, group, 3);
            assertArrayEquals(new long[2], profiled.graphCounts(), what + ": profiled Runs are never captured");
            String table = CudaStepBreakdown.table(null);
            System.out.println(what + ", where the GPU time goes:\n" + table);
            assertTrue(table.startsWith("3 profiled Runs"), table);
            assertTrue(table.contains("| Conv+Add+Relu | 1.0 |"), table);
            assertTrue(table.contains("| Conv+Relu | 1.0 |"), table);
        } finally {
            profiled.close();
            CudaStepBreakdown.reset();
        }
    }
}
