package dev.javaep.cuda.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Graph;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/**
 * A small ESPCN-like group on GPU 0 (Conv 5x5 → Tanh → Conv 3x3 → LeakyRelu → Conv 3x3 → Sigmoid), float32 and float16,
 * on cuDNN and on the direct kernels: the fused group (each Conv + activation one step) against the same group unfused,
 * float32 within 1e-5 relative and float16 within 2e-3 (ConvGpuTest's tolerance: the unfused group rounds Y to float16
 * before the bias and again before the activation); and the group replayed as a CUDA graph against the same group
 * launched eagerly, equal: Run 1 eager, Run 2 captured, Runs 3.. replayed. float32 without TF32, so that both sides
 * multiply in float32.
 */
@Tag("gpu")
class EpilogueFusionGraphsGpuTest extends GpuTest {
    private static final long[] X = {1, 3, 40, 56};

    private static ValueInfo value(String name, ElementType type, long... shape) {
        return new ValueInfo(name, type, shape, true);
    }

    private static Attribute ints(String name, long... values) {
        List<Long> list = new ArrayList<>();
        for (long v : values) {
            list.add(v);
        }
        return new Attribute.IntList(name, list);
    }

    private static Node conv(String x, String w, String b, String y, ElementType type, long[] wShape, long pad) {
        return new Node(y.hashCode(), y, "Conv", "", 11, List.of(value(x, type, 1, wShape[1], X[2], X[3]),
                value(w, type, wShape), value(b, type, wShape[0])), List.of(value(y, type, 1, wShape[0], X[2], X[3])),
                Map.of("pads", ints("pads", pad, pad, pad, pad)));
    }

    private static Node activation(String op, String x, String y, ElementType type, long channels, Attribute... attributes) {
        Map<String, Attribute> map = new java.util.HashMap<>();
        for (Attribute a : attributes) {
            map.put(a.name(), a);
        }
        return new Node(y.hashCode(), y, op, "", 13, List.of(value(x, type, 1, channels, X[2], X[3])),
                List.of(value(y, type, 1, channels, X[2], X[3])), map);
    }

    private static final long[] W1 = {16, 3, 5, 5};
    private static final long[] W2 = {8, 16, 3, 3};
    private static final long[] W3 = {4, 8, 3, 3};

    private CudaSubgraphProgram compile(ElementType type, String conv, boolean fusion, boolean graphs) {
        Graph group = new Graph("espcn_like", List.of(
                conv("x", "w1", "b1", "c1", type, W1, 2), activation("Tanh", "c1", "t1", type, 16),
                conv("t1", "w2", "b2", "c2", type, W2, 1),
                activation("LeakyRelu", "c2", "t2", type, 8, new Attribute.FloatValue("alpha", 0.1f)),
                conv("t2", "w3", "b3", "c3", type, W3, 1), activation("Sigmoid", "c3", "y", type, 4)), List.of(), List.of());
        Node fused = new Node(1, "fused", "JavaCuda_fused", "javaep", 1, List.of(value("x", type, X), value("w1", type, W1),
                value("b1", type, W1[0]), value("w2", type, W2), value("b2", type, W2[0]), value("w3", type, W3),
                value("b3", type, W3[0])), List.of(value("y", type, 1, 4, X[2], X[3])), Map.of());
        return SystemProperties.with(Map.of("javaep.cuda.conv", conv, CudaSubgraphProgram.FUSION_PROPERTY,
                        fusion ? "on" : "off", CudaSubgraphProgram.GRAPHS_PROPERTY, graphs ? "on" : "off",
                        "javaep.cuda.conv.tf32", "false"),
                () -> CudaSubgraphProgram.compile(group, fused, device));
    }

    private static float[] random(Random r, long[] shape, float scale) {
        long n = 1;
        for (long d : shape) {
            n *= d;
        }
        float[] v = new float[(int) n];
        for (int i = 0; i < v.length; i++) {
            v[i] = Float.float16ToFloat(Float.floatToFloat16((r.nextFloat() * 2 - 1) * scale));
        }
        return v;
    }

    /** X, then each Conv's W and B. */
    private static float[][] inputs(Random r) {
        return new float[][] {random(r, X, 1f), random(r, W1, 0.3f), random(r, new long[] {W1[0]}, 0.5f), random(r, W2, 0.3f),
                random(r, new long[] {W2[0]}, 0.5f), random(r, W3, 0.3f), random(r, new long[] {W3[0]}, 0.5f)};
    }

    /** {@code runs} Runs of {@code program} over the same device tensors; the output of each. */
    private List<float[]> run(CudaSubgraphProgram program, ElementType type, float[][] inputs, int runs) {
        return outputsOfRuns(program, type, inputs, new long[][] {X, W1, {W1[0]}, W2, {W2[0]}, W3, {W3[0]}}, runs);
    }

    private void check(ElementType type, String conv) {
        float[][] inputs = inputs(new Random(5));
        String what = type + " on " + conv;
        CudaSubgraphProgram unfused = compile(type, conv, false, false);
        CudaSubgraphProgram fused = compile(type, conv, true, false);
        CudaSubgraphProgram replayed = compile(type, conv, true, true);
        try {
            assertEquals(6, unfused.stepCount(), what);
            assertEquals(3, fused.stepCount(), what + ": each Conv with its activation");
            float[] expected = run(unfused, type, inputs, 1).getFirst();
            float[] actual = run(fused, type, inputs, 1).getFirst();
            double tolerance = type == ElementType.FLOAT ? 1e-5 : 2e-3;
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i], actual[i], tolerance * Math.max(1, Math.abs(expected[i])), what + " fused, element " + i);
            }
            List<float[]> runs = run(replayed, type, inputs, 5);
            for (int i = 0; i < runs.size(); i++) {
                assertArrayEquals(actual, runs.get(i), what + ": Run " + (i + 1) + " (1 eager, 2 captured, 3.. replayed)");
            }
            assertNull(replayed.graphsGaveUp(), what);
            assertArrayEquals(new long[] {1, 3}, replayed.graphCounts(), what + ": captures, replays");
            System.out.printf("%s: fused and unfused agree, graph replay equals eager (captures/replays %s)%n", what,
                    java.util.Arrays.toString(replayed.graphCounts()));
        } finally {
            unfused.close();
            fused.close();
            replayed.close();
        }
    }

    @ParameterizedTest(name = "{0} on {1}")
    @CsvSource({"FLOAT, cudnn", "FLOAT16, cudnn", "FLOAT, direct", "FLOAT16, direct"})
    void fusedEqualsUnfusedAndReplayEqualsEager(ElementType type, String conv) {
        check(type, conv);
    }

    /** New output addresses every Run: after a few captures that were never replayed, the group launches eagerly. */
    @Test
    void runsWithNewAddressesEachTimeStopCapturing() {
        float[][] inputs = inputs(new Random(9));
        CudaSubgraphProgram program = compile(ElementType.FLOAT, "cudnn", true, true);
        long[][] shapes = {X, W1, {W1[0]}, W2, {W2[0]}, W3, {W3[0]}};
        List<DeviceRunContext> open = new ArrayList<>(); // all kept open, so that every Run has addresses of its own
        try {
            float[] first = null;
            for (int i = 0; i < 8; i++) {
                DeviceRunContext c = DeviceRunContext.repeatable(driver, stream, ElementType.FLOAT, 1, inputs, shapes);
                open.add(c);
                program.compute(c);
                float[] y = c.output(0);
                if (first == null) {
                    first = y;
                }
                assertArrayEquals(first, y, "Run " + i);
            }
            assertEquals(0, program.graphCounts()[1], "nothing replayed");
            org.junit.jupiter.api.Assertions.assertNotNull(program.graphsGaveUp());
            System.out.println("new addresses every Run: " + program.graphsGaveUp() + "; captures/replays "
                    + java.util.Arrays.toString(program.graphCounts()));
        } finally {
            open.forEach(DeviceRunContext::close);
            program.close();
        }
    }
}
