package dev.javaep.cuda.kernel;

import static dev.javaep.cuda.kernel.Groups.fused;
import static dev.javaep.cuda.kernel.Groups.group;
import static dev.javaep.cuda.kernel.Groups.node;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.spi.Attribute;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * Compiled multi-node groups on GPU 0 with the EP's PTX kernels: an MLP layer (MatMul, Add, Relu, Softmax)
 * at several batch sizes from one compiled group, against a float64 host reference; fused outputs read
 * inside the group and an input passed straight to an output; concurrent Runs on their own streams.
 */
@Tag("gpu")
class CudaSubgraphProgramGpuTest extends GpuTest {
    private static final int IN = 64;
    private static final int OUT = 48;


    @Override
    protected boolean needsNvrtc() {
        return false;
    }


    private static float[] random(Random r, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (float) r.nextGaussian();
        }
        return v;
    }

    /** y = Softmax(Relu(x·w + b)) along the last axis. */
    private CudaSubgraphProgram mlp() {
        return CudaSubgraphProgram.compile(group(
                        node("MatMul", List.of("x", "w"), "xw"),
                        node("Add", List.of("xw", "b"), "pre"),
                        node("Relu", List.of("pre"), "act"),
                        node("Softmax", List.of("act"), "y", Map.of("axis", new Attribute.IntValue("axis", -1)), 13)),
                fused(List.of("x", "w", "b"), List.of("y")), device);
    }

    private static float[] mlpOnHost(float[] x, float[] w, float[] b, int batch) {
        float[] y = new float[batch * OUT];
        for (int r = 0; r < batch; r++) {
            double[] act = new double[OUT];
            double max = Double.NEGATIVE_INFINITY;
            for (int c = 0; c < OUT; c++) {
                double s = b[c];
                for (int k = 0; k < IN; k++) {
                    s += (double) x[r * IN + k] * w[k * OUT + c];
                }
                act[c] = Math.max(s, 0);
                max = Math.max(max, act[c]);
            }
            double sum = 0;
            for (int c = 0; c < OUT; c++) {
                act[c] = Math.exp(act[c] - max);
                sum += act[c];
            }
            for (int c = 0; c < OUT; c++) {
                y[r * OUT + c] = (float) (act[c] / sum);
            }
        }
        return y;
    }

    private static void assertClose(float[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) {
            assertEquals(expected[i], actual[i], 1e-6 + 1e-4 * Math.abs(expected[i]), what + " element " + i);
        }
    }

    @Test
    void oneCompiledMlpLayerRunsAtSeveralBatchSizesWithPlannedIntermediates() {
        CudaSubgraphProgram program = mlp();
        assertEquals(3, program.intermediateCount());
        Random random = new Random(7);
        float[] w = random(random, IN * OUT);
        float[] b = random(random, OUT);
        for (int batch : new int[] {1, 8, 1, 33, 8, 1}) {
            float[] x = random(random, batch * IN);
            try (DeviceRunContext c = new DeviceRunContext(driver, stream, 1, new float[][] {x, w, b},
                    new long[][] {{batch, IN}, {IN, OUT}, {OUT}})) {
                program.compute(c);
                assertArrayEquals(new long[] {batch, OUT}, c.outputShape(0));
                assertClose(mlpOnHost(x, w, b, batch), c.output(0), "batch " + batch);
            }
        }
        assertEquals(3, program.cachedPlans(), "batch 1, 8 and 33");
        IntermediatePlan plan = program.plan(new long[] {33, IN}, new long[] {IN, OUT}, new long[] {OUT}).orElseThrow();
        long bytes = IntermediatePlan.aligned(33L * OUT * 4);
        assertEquals(2 * bytes, plan.workspaceBytes(), "xw and act share bytes: xw's last reader ran before Relu wrote act");
        program.close();
    }

    @Test
    void fusedOutputsReadInsideTheGroupAndAPassedThroughInput() {
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(group(
                        node("Identity", List.of("x"), "x_copy"),
                        node("Sub", List.of("x", "m"), "centered"),
                        node("Tanh", List.of("centered"), "t"),
                        node("Mul", List.of("t", "centered"), "y")),
                fused(List.of("x", "m"), List.of("x_copy", "centered", "y")), device);
        float[] x = random(new Random(3), 1000);
        float[] m = new float[1000];
        java.util.Arrays.fill(m, 0.25f);
        try (DeviceRunContext c = new DeviceRunContext(driver, stream, 3, new float[][] {x, m},
                new long[][] {{10, 100}, {10, 100}})) {
            program.compute(c);
            assertArrayEquals(x, c.output(0));
            float[] centered = c.output(1);
            float[] y = c.output(2);
            for (int i = 0; i < x.length; i++) {
                assertEquals(x[i] - 0.25f, centered[i], 0f);
                double expected = Math.tanh(centered[i]) * centered[i];
                assertEquals(expected, y[i], 1e-6 + 1e-6 * Math.abs(expected), "y " + i);
            }
        }
    }

    @Test
    void concurrentRunsOnTheirOwnStreams() throws Exception {
        CudaSubgraphProgram program = mlp();
        Random random = new Random(11);
        float[] w = random(random, IN * OUT);
        float[] b = random(random, OUT);
        Concurrently.onThreads(device, 6, thread -> {
            long own = driver.streamCreate(CudaDriver.STREAM_NON_BLOCKING);
            try {
                Random r = new Random(thread);
                for (int i = 0; i < 50; i++) {
                    int batch = 1 + (thread + i) % 4 * 16;
                    float[] x = random(r, batch * IN);
                    try (DeviceRunContext c = new DeviceRunContext(driver, own, 1, new float[][] {x, w, b},
                            new long[][] {{batch, IN}, {IN, OUT}, {OUT}})) {
                        program.compute(c);
                        assertClose(mlpOnHost(x, w, b, batch), c.output(0), "thread " + thread + " run " + i);
                    }
                }
            } finally {
                driver.streamSynchronize(own);
                driver.streamDestroy(own);
            }
        });
        assertTrue(program.cachedPlans() <= CudaSubgraphProgram.MAX_PLANS);
    }
}
