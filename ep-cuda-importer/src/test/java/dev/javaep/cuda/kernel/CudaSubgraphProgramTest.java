package dev.javaep.cuda.kernel;

import static dev.javaep.cuda.driver.FakeCuda.K_ASYNC_ALLOCS;
import static dev.javaep.cuda.driver.FakeCuda.K_ASYNC_ALLOC_SIZE;
import static dev.javaep.cuda.driver.FakeCuda.K_ASYNC_FREES;
import static dev.javaep.cuda.driver.FakeCuda.K_STREAM;
import static dev.javaep.cuda.kernel.Groups.fused;
import static dev.javaep.cuda.kernel.Groups.group;
import static dev.javaep.cuda.kernel.Groups.node;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.FakeCuda;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.Graph;
import dev.javaep.spi.Node;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Compiled groups of real nodes (Add, Sub, Mul, Div, Relu, Identity) run over the stand-in libcuda, whose
 * kernels compute on the host: the wiring of values by name, fused outputs read inside the group, the
 * planned workspace (one stream-ordered allocation per Run once a shape was seen), plans per input shape,
 * and the memory returned when a step fails.
 */
class CudaSubgraphProgramTest {
    private static final long STREAM = 0x5A11;

    private static FakeCuda fake;
    private static CudaDriver driver;
    private static CudaDevice device;

    @BeforeAll
    static void fakeDevice() {
        fake = FakeCuda.build();
        fake.loseContext(0);
        driver = fake.driver();
        device = CudaDevice.open(driver, 0);
    }

    @AfterAll
    static void closeDevice() {
        if (device != null) {
            device.close();
        }
    }

    @BeforeEach
    void current() {
        device.makeCurrent();
    }

    private static long allocs() {
        return fake.last(K_ASYNC_ALLOCS);
    }

    private static long frees() {
        return fake.last(K_ASYNC_FREES);
    }

    private static float[] iota(int n, float scale, float offset) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = (i - n / 2f) * scale + offset;
        }
        return v;
    }

    private static DeviceRunContext run(CompiledNode program, int outputs, float[][] data, long[]... shapes) {
        DeviceRunContext context = new DeviceRunContext(driver, STREAM, outputs, data, shapes);
        program.compute(context);
        return context;
    }

    /** out = Relu(x + y) * y, with two intermediates. */
    private static CudaSubgraphProgram addReluMul() {
        Graph g = group(node("Add", List.of("x", "y"), "sum"), node("Relu", List.of("sum"), "relu"),
                node("Mul", List.of("relu", "y"), "out"));
        return CudaSubgraphProgram.compile(g, fused(List.of("x", "y"), List.of("out")), device);
    }

    private static float[] addReluMulOnHost(float[] x, float[] y) {
        float[] out = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            out[i] = Math.max(x[i] + y[i], 0f) * y[i];
        }
        return out;
    }

    @Test
    void runsAGroupAndPlansItsIntermediatesOnTheFirstRunWithAShape() {
        CudaSubgraphProgram program = addReluMul();
        assertEquals(3, program.stepCount());
        assertEquals(2, program.intermediateCount());
        float[] x = iota(6, 0.5f, 0.25f);
        float[] y = iota(6, -0.25f, 1f);

        long allocs = allocs();
        long frees = frees();
        try (DeviceRunContext c = run(program, 1, new float[][] {x, y}, new long[] {2, 3}, new long[] {2, 3})) {
            assertEquals(STREAM, fake.last(K_STREAM), "on the Run's stream");
            assertArrayEquals(addReluMulOnHost(x, y), c.output(0));
            assertArrayEquals(new long[] {2, 3}, c.outputShape(0));
        }
        assertEquals(2, allocs() - allocs, "first Run with [2,3]: one allocation per intermediate, recorded");
        assertEquals(2, frees() - frees, "each freed after its last reader");
        IntermediatePlan plan = program.plan(new long[] {2, 3}, new long[] {2, 3}).orElseThrow();
        assertEquals(2 * 256, plan.workspaceBytes(), "sum and relu are alive together at the Relu step");

        allocs = allocs();
        frees = frees();
        try (DeviceRunContext c = run(program, 1, new float[][] {x, y}, new long[] {2, 3}, new long[] {2, 3})) {
            assertArrayEquals(addReluMulOnHost(x, y), c.output(0));
        }
        assertEquals(1, allocs() - allocs, "a planned Run takes one workspace");
        assertEquals(plan.workspaceBytes(), fake.last(K_ASYNC_ALLOC_SIZE));
        assertEquals(1, frees() - frees, "and returns it at the end of the Run");
        assertEquals(1, program.cachedPlans());
    }

    @Test
    void oneCompiledGroupRunsAtSeveralShapesWithAPlanEach() {
        CudaSubgraphProgram program = addReluMul();
        long[][] shapes = {{2, 3}, {4, 1024}, {1}, {0, 5}, {2, 3}, {4, 1024}};
        for (long[] shape : shapes) {
            int n = (int) java.util.Arrays.stream(shape).reduce(1, Math::multiplyExact);
            float[] x = iota(n, 0.01f, -0.5f);
            float[] y = iota(n, 0.02f, 0.125f);
            try (DeviceRunContext c = run(program, 1, new float[][] {x, y}, shape, shape)) {
                assertArrayEquals(addReluMulOnHost(x, y), c.output(0), java.util.Arrays.toString(shape));
                assertArrayEquals(shape, c.outputShape(0));
            }
        }
        assertEquals(4, program.cachedPlans(), "one plan per distinct input shape");
        assertEquals(2 * 16384, program.plan(new long[] {4, 1024}, new long[] {4, 1024}).orElseThrow().workspaceBytes());
        assertEquals(0, program.plan(new long[] {0, 5}, new long[] {0, 5}).orElseThrow().workspaceBytes());
    }

    @Test
    void plansAreBoundedAndTheLeastRecentlyUsedGoesFirst() {
        CudaSubgraphProgram program = addReluMul();
        for (int n = 1; n <= CudaSubgraphProgram.MAX_PLANS + 3; n++) {
            float[] x = iota(n, 1f, 0f);
            try (DeviceRunContext c = run(program, 1, new float[][] {x, x}, new long[] {n}, new long[] {n})) {
                assertArrayEquals(addReluMulOnHost(x, x), c.output(0));
            }
            if (n == CudaSubgraphProgram.MAX_PLANS) {
                // touch shape [1] so that [2] is now the least recently used
                try (DeviceRunContext c = run(program, 1, new float[][] {{1f}, {1f}}, new long[] {1}, new long[] {1})) {
                    assertArrayEquals(new float[] {2f}, c.output(0));
                }
            }
        }
        assertEquals(CudaSubgraphProgram.MAX_PLANS, program.cachedPlans());
        assertTrue(program.plan(new long[] {1}, new long[] {1}).isPresent(), "recently used: kept");
        assertTrue(program.plan(new long[] {2}, new long[] {2}).isEmpty(), "least recently used: evicted");
        assertTrue(program.plan(new long[] {3}, new long[] {3}).isEmpty());
        assertTrue(program.plan(new long[] {4}, new long[] {4}).isEmpty());
        assertTrue(program.plan(new long[] {11}, new long[] {11}).isPresent());
    }

    @Test
    void aLongChainReusesTwoSlots() {
        Graph g = group(node("Relu", List.of("x"), "a"), node("Add", List.of("a", "a"), "b"), node("Relu", List.of("b"), "c"),
                node("Add", List.of("c", "c"), "d"), node("Relu", List.of("d"), "e"), node("Sub", List.of("e", "x"), "out"));
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(g, fused(List.of("x"), List.of("out")), device);
        float[] x = iota(1000, 0.5f, 0f);
        float[] expected = new float[x.length];
        for (int i = 0; i < x.length; i++) {
            expected[i] = Math.max(Math.max(x[i], 0) * 4, 0) - x[i];
        }
        for (int run = 0; run < 2; run++) {
            try (DeviceRunContext c = run(program, 1, new float[][] {x}, new long[] {1000})) {
                assertArrayEquals(expected, c.output(0));
            }
        }
        assertEquals(5, program.intermediateCount());
        assertEquals(2 * 4096, program.plan(new long[] {1000}).orElseThrow().workspaceBytes(),
                "five 4000-byte intermediates in a chain fit in two 4096-byte slots");
    }

    @Test
    void aFusedOutputIsAlsoReadInsideTheGroup() {
        // y is both the fused node's output 0 and the input of the Relu that writes output 1
        Graph g = group(node("Sub", List.of("x", "b"), "y"), node("Relu", List.of("y"), "z"));
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(g, fused(List.of("x", "b"), List.of("y", "z")), device);
        assertEquals(0, program.intermediateCount());
        float[] x = {-2, -1, 0, 1, 2, 3};
        float[] b = {1, 1, 1, 1, 1, 1};
        long allocs = allocs();
        try (DeviceRunContext c = run(program, 2, new float[][] {x, b}, new long[] {6}, new long[] {6})) {
            assertArrayEquals(new float[] {-3, -2, -1, 0, 1, 2}, c.output(0));
            assertArrayEquals(new float[] {0, 0, 0, 0, 1, 2}, c.output(1));
            assertEquals(2, c.outputRequests());
        }
        assertEquals(allocs, allocs(), "no intermediates: no EP memory at all");
    }

    @Test
    void aFusedInputPassesStraightToAnOutput() {
        Graph g = group(node("Identity", List.of("x"), "same"), node("Relu", List.of("x"), "relu"),
                node("Div", List.of("relu", "x"), "ratio"));
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(g, fused(List.of("x"), List.of("same", "ratio")), device);
        float[] x = {-4, -1, 1, 4};
        try (DeviceRunContext c = run(program, 2, new float[][] {x}, new long[] {2, 2})) {
            assertArrayEquals(x, c.output(0));
            assertArrayEquals(new long[] {2, 2}, c.outputShape(0));
            assertArrayEquals(new float[] {0f / -4f, 0f / -1f, 1, 1}, c.output(1), "Relu(x) / x, -0 where x < 0");
        }
    }

    @Test
    void aSingleNodeGroupNeedsNoPlan() {
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(group(node("Mul", List.of("a", "b"), "c")),
                fused(List.of("a", "b"), List.of("c")), device);
        long allocs = allocs();
        try (DeviceRunContext c = run(program, 1, new float[][] {{1, 2, 3}, {4, 5, 6}}, new long[] {3}, new long[] {3})) {
            assertArrayEquals(new float[] {4, 10, 18}, c.output(0));
        }
        assertEquals(allocs, allocs());
        assertEquals(0, program.cachedPlans());
    }

    @Test
    void aStepReadsAComputedInputOnTheHost() {
        // Resize's scales, a reduction's axes: a value computed on the device, copied back for the step
        float[][] seen = new float[1][];
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(group(node("Relu", List.of("x"), "r"),
                        node("Identity", List.of("x", "r"), "out")), fused(List.of("x"), List.of("out")), device,
                node -> node.opType().equals("Identity")
                        ? context -> {
                            seen[0] = ((CudaKernelContext) context).hostInput(1).floats();
                            context.output(0, new long[] {0});
                        }
                        : CudaOps.compile(node, device));
        try (DeviceRunContext c = run(program, 1, new float[][] {{-1, 2, -3, 4}}, new long[] {4})) {
            assertArrayEquals(new float[] {0, 2, 0, 4}, seen[0]);
        }
    }

    @Test
    void aFailingStepReturnsTheMemoryAndCachesNoPlan() {
        Graph g = group(node("Relu", List.of("x"), "a"), node("Relu", List.of("a"), "b"), node("Relu", List.of("b"), "out"));
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(g, fused(List.of("x"), List.of("out")), device,
                node -> node.outputs().getFirst().name().equals("b")
                        ? context -> {
                            context.output(0, context.input(0).shape()); // takes its memory, then fails
                            throw new IllegalStateException("step b failed");
                        }
                        : CudaOps.compile(node, device));
        long allocs = allocs();
        long frees = frees();
        try (DeviceRunContext c = new DeviceRunContext(driver, STREAM, 1, new float[][] {{1, 2}}, new long[][] {{2}})) {
            IllegalStateException e = assertThrows(IllegalStateException.class, () -> program.compute(c));
            assertEquals("step b failed", e.getMessage());
        }
        assertEquals(2, allocs() - allocs);
        assertEquals(allocs() - allocs, frees() - frees, "every allocation of the failed Run was returned");
        assertEquals(0, program.cachedPlans(), "a failed Run records no plan");
    }

    @Test
    void anIntermediateThatOutgrowsThePlanGetsItsOwnMemoryAndRefreshesThePlan() {
        // A step whose output size depends on data, not on the input shapes: 1 element, then 300
        int[] elements = {1};
        Graph g = group(node("Relu", List.of("x"), "grown"), node("Relu", List.of("grown"), "out"));
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(g, fused(List.of("x"), List.of("out")), device,
                node -> node.outputs().getFirst().name().equals("grown")
                        ? context -> {
                            long[] shape = {elements[0]};
                            long address = context.output(0, shape).data().address();
                            driver.memsetD32Async(address, Float.floatToRawIntBits(3f), elements[0], context.computeStream());
                        }
                        : CudaOps.compile(node, device));
        long[] shape = {4};
        try (DeviceRunContext c = run(program, 1, new float[][] {{1, 2, 3, 4}}, shape)) {
            assertArrayEquals(new float[] {3}, c.output(0));
        }
        assertEquals(256, program.plan(shape).orElseThrow().workspaceBytes());

        elements[0] = 300;
        long allocs = allocs();
        long frees = frees();
        try (DeviceRunContext c = run(program, 1, new float[][] {{1, 2, 3, 4}}, shape)) {
            float[] expected = new float[300];
            java.util.Arrays.fill(expected, 3f);
            assertArrayEquals(expected, c.output(0));
        }
        assertEquals(2, allocs() - allocs, "the workspace, and the value that outgrew its place in it");
        assertEquals(2, frees() - frees);
        assertEquals(1280, program.plan(shape).orElseThrow().workspaceBytes(), "the plan now fits 1200 bytes");

        allocs = allocs();
        try (DeviceRunContext c = run(program, 1, new float[][] {{1, 2, 3, 4}}, shape)) {
            assertEquals(300, c.output(0).length);
        }
        assertEquals(1, allocs() - allocs, "planned again");
    }

    @Test
    void concurrentRunsAtDifferentShapesEachGetTheirOwnMemory() throws Exception {
        CudaSubgraphProgram program = addReluMul();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> runs = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                int thread = t;
                runs.add(pool.submit(() -> {
                    device.makeCurrent();
                    for (int i = 0; i < 200; i++) {
                        int n = 1 + (thread + i) % 5 * 64;
                        float[] x = iota(n, 0.5f, thread);
                        float[] y = iota(n, 0.25f, -i);
                        try (DeviceRunContext c = run(program, 1, new float[][] {x, y}, new long[] {n}, new long[] {n})) {
                            assertArrayEquals(addReluMulOnHost(x, y), c.output(0));
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> run : runs) {
                run.get();
            }
        } finally {
            pool.shutdown();
        }
        assertEquals(5, program.cachedPlans());
    }

    @Test
    void refusesGroupsItCannotWire() {
        Node fusedNode = fused(List.of("x"), List.of("out"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CudaSubgraphProgram.compile(
                group(node("Relu", List.of("a"), "out"), node("Relu", List.of("x"), "a")), fusedNode, device));
        assertTrue(e.getMessage().contains("reads 'a'") && e.getMessage().contains("topological order"), e.getMessage());

        e = assertThrows(IllegalArgumentException.class, () -> CudaSubgraphProgram.compile(
                group(node("Relu", List.of("x"), "a")), fusedNode, device));
        assertTrue(e.getMessage().contains("output 'out', which no node of the group writes"), e.getMessage());

        e = assertThrows(IllegalArgumentException.class, () -> CudaSubgraphProgram.compile(
                group(node("Relu", List.of("x"), "a"), node("Relu", List.of("x"), "a")), fusedNode, device));
        assertTrue(e.getMessage().contains("writes 'a'"), e.getMessage());

        e = assertThrows(IllegalArgumentException.class, () -> CudaSubgraphProgram.compile(
                group(node("Det", List.of("x"), "out")), fusedNode, device));
        assertTrue(e.getMessage().contains("cannot compile Det"), e.getMessage());
    }

    @Test
    void theProgramIsWhatTheEpCompilesForEveryGroup() {
        CompiledNode single = CudaSubgraphProgram.compile(group(node("Relu", List.of("x"), "y")),
                fused(List.of("x"), List.of("y")), device);
        assertSame(CudaSubgraphProgram.class, single.getClass());
    }
}
