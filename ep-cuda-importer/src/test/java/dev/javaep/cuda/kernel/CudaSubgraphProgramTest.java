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
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cuda.FakeDeviceTest;
import dev.javaep.cuda.kernel.DeviceRunContext.Data;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Graph;
import dev.javaep.spi.Node;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.TensorValue;
import dev.javaep.spi.ValueInfo;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Compiled groups of real nodes (Add, Sub, Mul, Div, Relu, Identity) run over the stand-in libcuda, whose
 * kernels compute on the host: the wiring of values by name, fused outputs read inside the group, the
 * planned workspace (one stream-ordered allocation per Run once a shape was seen), plans per input shape,
 * and the memory returned when a step fails; and host values: shape arithmetic that runs on the host with
 * JavaCpu's kernels (which steps, no workspace, no copies), uploads where a device step or a fused output needs one.
 */
class CudaSubgraphProgramTest extends FakeDeviceTest {
    private static final long STREAM = 0x5A11;

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
        Concurrently.onThreads(device, 8, thread -> {
            for (int i = 0; i < 200; i++) {
                int n = 1 + (thread + i) % 5 * 64;
                float[] x = iota(n, 0.5f, thread);
                float[] y = iota(n, 0.25f, -i);
                try (DeviceRunContext c = run(program, 1, new float[][] {x, y}, new long[] {n}, new long[] {n})) {
                    assertArrayEquals(addReluMulOnHost(x, y), c.output(0));
                }
            }
        });
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
    void aCompileThatFailsPartWayClosesTheStepKernelsItMade() {
        List<String> closed = new ArrayList<>();
        java.util.function.Function<Node, CompiledNode> kernels = node -> {
            if (node.opType().equals("Mul")) {
                throw new IllegalArgumentException("no Mul today");
            }
            CompiledNode real = CudaOps.compile(node, device);
            return new CompiledNode() {
                @Override
                public void compute(dev.javaep.spi.KernelContext context) {
                    real.compute(context);
                }

                @Override
                public void close() {
                    closed.add(node.opType());
                    real.close();
                }
            };
        };
        Graph g = group(node("Add", List.of("x", "y"), "sum"), node("Relu", List.of("sum"), "relu"),
                node("Mul", List.of("relu", "y"), "out"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> CudaSubgraphProgram.compile(g,
                fused(List.of("x", "y"), List.of("out")), device, kernels, CpuKernels::forNode,
                CudaSubgraphProgram.EpilogueFusion.NONE));
        assertEquals("no Mul today", e.getMessage());
        assertEquals(List.of("Add", "Relu"), closed, "ORT never gets the program: its compile releases what it made");
    }

    @Test
    void theProgramIsWhatTheEpCompilesForEveryGroup() {
        CompiledNode single = CudaSubgraphProgram.compile(group(node("Relu", List.of("x"), "y")),
                fused(List.of("x"), List.of("y")), device);
        assertSame(CudaSubgraphProgram.class, single.getClass());
    }

    // ---- host values -------------------------------------------------------------------------------

    private static ValueInfo typed(String name, ElementType type) {
        return new ValueInfo(name, type, null, true);
    }

    /** An int64 constant initializer as GetCapability copies it: its value is in the ValueInfo. */
    private static ValueInfo int64Constant(String name, long[] shape, long... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
        for (long v : values) {
            b.putLong(v);
        }
        return new ValueInfo(name, ElementType.INT64, shape, true, true, new TensorValue(ElementType.INT64, shape, b.flip()));
    }

    private static Node typedNode(String op, List<ValueInfo> inputs, ValueInfo output, Map<String, Attribute> attributes) {
        return new Node(output.name().hashCode(), op + "_" + output.name(), op, "", 13, inputs, List.of(output), attributes);
    }

    private static Node typedFused(List<ValueInfo> inputs, List<ValueInfo> outputs) {
        return new Node(7, "JavaCuda_fused_host", "JavaCuda_fused", "javaep", 1, inputs, outputs, Map.of());
    }

    private static final ValueInfo X = typed("x", ElementType.FLOAT);
    private static final ValueInfo SHAPE_OF_X = typed("shape_of_x", ElementType.INT64);

    private static float[] iota(int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = i * 0.5f - 3;
        }
        return v;
    }

    /** Records which nodes the program asks device kernels for, and makes them as the EP does. */
    private static final class DeviceSteps implements java.util.function.Function<Node, CompiledNode> {
        final List<String> asked = new ArrayList<>();

        @Override
        public CompiledNode apply(Node node) {
            asked.add(node.opType());
            return CudaOps.compile(node, device);
        }
    }

    @Test
    void theConstantsNativeMemoryGoesWithTheProgramNotWithAGc() {
        ValueInfo flat = int64Constant("flat", new long[] {1}, -1);
        ValueInfo out = typed("out", ElementType.FLOAT);
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(group(typedNode("Reshape", List.of(X, flat), out, Map.of())),
                typedFused(List.of(X, flat), List.of(out)), device);
        assertFalse(program.constantsReleased());
        program.close();
        assertTrue(program.constantsReleased(), "closed with the program: a session's release returns it at once");
        program.close(); // a second close is quiet
    }

    @Test
    void aPyTorchDynamicReshapeRunsItsShapeArithmeticOnTheHost() {
        // x.view(x.size(0), -1) as torch.onnx exports it: Shape -> Gather -> Unsqueeze -> Concat -> Reshape
        ValueInfo zero = int64Constant("zero", new long[0], 0);
        ValueInfo axes = int64Constant("axes", new long[] {1}, 0);
        ValueInfo minusOne = int64Constant("minus_one", new long[] {1}, -1);
        ValueInfo batch = typed("batch", ElementType.INT64);
        ValueInfo batch1 = typed("batch_1d", ElementType.INT64);
        ValueInfo target = typed("target_shape", ElementType.INT64);
        ValueInfo out = typed("out", ElementType.FLOAT);
        Graph g = group(typedNode("Shape", List.of(X), SHAPE_OF_X, Map.of()),
                typedNode("Gather", List.of(SHAPE_OF_X, zero), batch, Map.of("axis", new Attribute.IntValue("axis", 0))),
                typedNode("Unsqueeze", List.of(batch, axes), batch1, Map.of()),
                typedNode("Concat", List.of(batch1, minusOne), target, Map.of("axis", new Attribute.IntValue("axis", 0))),
                typedNode("Reshape", List.of(X, target), out, Map.of()));
        DeviceSteps deviceSteps = new DeviceSteps();
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(g, typedFused(List.of(X, zero, axes, minusOne), List.of(out)),
                device, deviceSteps);
        assertEquals(List.of("Reshape"), deviceSteps.asked, "only the Reshape runs on the device");
        assertEquals(4, program.hostStepCount());
        assertEquals(0, program.intermediateCount(), "host values take no workspace");

        float[] x = iota(24);
        for (int run = 0; run < 2; run++) {
            try (DeviceRunContext c = new DeviceRunContext(driver, STREAM, List.of(ElementType.FLOAT), List.of(
                    Data.floats(x, 2, 3, 4), Data.longs(new long[] {0}), Data.longs(new long[] {0}, 1),
                    Data.longs(new long[] {-1}, 1)))) {
                long before = allocs();
                program.compute(c);
                assertEquals(before, allocs(), "no workspace and no uploads");
                Data y = c.data(0);
                assertArrayEquals(new long[] {2, 12}, y.shape());
                assertArrayEquals(x, y.toFloats());
            }
        }
        assertEquals(0, program.deviceToHostCopies(), "Reshape read its shape on the host without a copy");
    }

    @Test
    void aHostValueIsUploadedForADeviceStepThatReadsItFromDeviceMemory() {
        ValueInfo out = typed("out", ElementType.INT64);
        Node fill = typedNode("ConstantOfShape", List.of(SHAPE_OF_X), out, Map.of());
        Graph g = group(typedNode("Shape", List.of(X), SHAPE_OF_X, Map.of()), fill);
        boolean[] sawHostValue = {false};
        long[][] hostShape = {null};
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(g, typedFused(List.of(X), List.of(out)), device,
                node -> context -> {
                    // a device step (its host kernel is withheld below) that reads the shape from device memory
                    CudaKernelContext cuda = (CudaKernelContext) context;
                    sawHostValue[0] = cuda.hasHostValue(0);
                    hostShape[0] = cuda.hostInput(0).longs();
                    Tensor shape = context.input(0);
                    Tensor y = context.output(0, shape.shape());
                    driver.memcpyDtoDAsync(y.data().address(), shape.data().address(), shape.byteSize(), context.computeStream());
                },
                node -> node.opType().equals("ConstantOfShape") ? Optional.empty() : CpuKernels.forNode(node));
        assertEquals(1, program.hostStepCount());
        try (DeviceRunContext c = new DeviceRunContext(driver, STREAM, List.of(ElementType.INT64),
                List.of(Data.floats(iota(24), 2, 3, 4)))) {
            long allocs = allocs();
            long frees = frees();
            program.compute(c);
            assertEquals(1, allocs() - allocs, "one upload");
            assertEquals(1, frees() - frees, "returned at the end of the Run");
            assertArrayEquals(new long[] {2, 3, 4}, c.data(0).toLongs());
        }
        assertTrue(sawHostValue[0]);
        assertArrayEquals(new long[] {2, 3, 4}, hostShape[0]);
        assertEquals(0, program.deviceToHostCopies());
    }

    @Test
    void aHostValueThatIsAFusedOutputIsCopiedIntoOrtsTensor() {
        ValueInfo rank = typed("rank", ElementType.INT64);
        Graph g = group(typedNode("Shape", List.of(X), SHAPE_OF_X, Map.of()), typedNode("Size", List.of(SHAPE_OF_X), rank, Map.of()));
        DeviceSteps deviceSteps = new DeviceSteps();
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(g, typedFused(List.of(X), List.of(SHAPE_OF_X, rank)), device,
                deviceSteps);
        assertEquals(List.of(), deviceSteps.asked);
        try (DeviceRunContext c = new DeviceRunContext(driver, STREAM, List.of(ElementType.INT64, ElementType.INT64),
                List.of(Data.floats(iota(30), 5, 1, 6)))) {
            long allocs = allocs();
            program.compute(c);
            assertEquals(allocs, allocs());
            assertArrayEquals(new long[] {5, 1, 6}, c.data(0).toLongs());
            assertArrayEquals(new long[] {3}, c.data(1).toLongs());
            assertArrayEquals(new long[0], c.data(1).shape());
        }
    }

    @Test
    void shapeArithmeticOnAValueOnlyTheDeviceHasStaysOnTheDevice() {
        ValueInfo data = typed("data", ElementType.INT64); // computed by another EP: in device memory, value unknown
        ValueInfo index = int64Constant("index", new long[0], 1);
        ValueInfo picked = typed("picked", ElementType.INT64);
        ValueInfo asFloat = typed("as_float", ElementType.FLOAT);
        List<String> asked = new ArrayList<>();
        Graph g = group(typedNode("Gather", List.of(data, index), picked, Map.of()),
                typedNode("Shape", List.of(X), SHAPE_OF_X, Map.of()),
                typedNode("ConstantOfShape", List.of(SHAPE_OF_X), asFloat, Map.of()));
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(g, typedFused(List.of(data, index, X), List.of(picked, asFloat)),
                device, node -> {
                    asked.add(node.opType());
                    return context -> {};
                });
        assertEquals(List.of("Gather", "ConstantOfShape"), asked,
                "Gather reads a device value; ConstantOfShape makes floats, which are not shape arithmetic");
        assertEquals(1, program.hostStepCount());
        assertFalse(program.toString().isEmpty());
    }

    private static ValueInfo floatConstant(String name, float... values) {
        ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            b.putFloat(v);
        }
        long[] shape = {values.length};
        return new ValueInfo(name, ElementType.FLOAT, shape, true, true, new TensorValue(ElementType.FLOAT, shape, b.flip()));
    }

    @Test
    void floatArithmeticOnHostValuesStaysOnTheHostButAFloatGeneratorDoesNot() {
        // sizes * 1.5 as a Resize's sizes might be computed; zeros_like(x) is ConstantOfShape(Shape(x)) in float
        ValueInfo sizes = floatConstant("sizes", 2, 4);
        ValueInfo factor = floatConstant("factor", 1.5f);
        ValueInfo scaled = typed("scaled", ElementType.FLOAT);
        ValueInfo r = typed("r", ElementType.FLOAT);
        ValueInfo zeros = typed("zeros", ElementType.FLOAT);
        List<String> asked = new ArrayList<>();
        float[][] seen = {null};
        Graph g = group(typedNode("Mul", List.of(sizes, factor), scaled, Map.of()),
                typedNode("Relu", List.of(scaled), r, Map.of()),
                typedNode("Shape", List.of(X), SHAPE_OF_X, Map.of()),
                typedNode("ConstantOfShape", List.of(SHAPE_OF_X), zeros, Map.of()));
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(g, typedFused(List.of(X, sizes, factor), List.of(r, zeros)),
                device, node -> {
                    asked.add(node.opType());
                    return context -> {
                        if (node.opType().equals("Relu")) {
                            seen[0] = ((CudaKernelContext) context).hostInput(0).floats();
                        }
                        context.output(0, new long[] {0});
                    };
                });
        assertEquals(List.of("Relu", "ConstantOfShape"), asked, "Mul and Shape run on the host, the float generator does not");
        assertEquals(2, program.hostStepCount());
        try (DeviceRunContext c = new DeviceRunContext(driver, STREAM, List.of(ElementType.FLOAT, ElementType.FLOAT), List.of(
                Data.floats(iota(6), 2, 3), Data.floats(new float[] {2, 4}, 2), Data.floats(new float[] {1.5f}, 1)))) {
            program.compute(c);
        }
        assertArrayEquals(new float[] {3, 6}, seen[0]);
        assertEquals(0, program.deviceToHostCopies());
    }

    @Test
    void aShapeOnlyTheDeviceHasIsCopiedToTheHostAndCounted() {
        ValueInfo shape = typed("shape", ElementType.INT64); // a graph input: device memory
        ValueInfo out = typed("out", ElementType.FLOAT);
        Graph g = group(typedNode("Reshape", List.of(X, shape), out, Map.of()));
        CudaSubgraphProgram program = CudaSubgraphProgram.compile(g, typedFused(List.of(X, shape), List.of(out)), device);
        assertEquals(0, program.hostStepCount());
        float[] x = iota(6);
        try (DeviceRunContext c = new DeviceRunContext(driver, STREAM, List.of(ElementType.FLOAT),
                List.of(Data.floats(x, 6), Data.longs(new long[] {3, -1}, 2)))) {
            program.compute(c);
            assertArrayEquals(new long[] {3, 2}, c.data(0).shape());
            assertArrayEquals(x, c.data(0).toFloats());
        }
        assertEquals(1, program.deviceToHostCopies(), "the fallback: a synchronising copy");
    }
}
