package dev.javaep.cuda.kernel;

import static dev.javaep.cuda.kernel.Groups.fused;
import static dev.javaep.cuda.kernel.Groups.group;
import static dev.javaep.cuda.kernel.Groups.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.driver.FakeCuda;
import dev.javaep.cuda.kernel.elementwise.ElementwiseKernels;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Graph;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The group planning step that makes one step of a Conv and the activation after it, and of Conv → Add → activation
 * (ResNet's block tail, the Add's other input becoming the residual the Conv's step adds), over the stand-in libcuda
 * (the kernels are never run): which chains fuse, what the fused step reads and writes and where it runs, each reason a
 * chain stays apart, the activations the elementwise family offers, which fusion {@code javaep.cuda.fusion} selects,
 * and how {@link CudaStepBreakdown} sums step timings.
 */
class EpilogueFusionTest {
    /** The shape of every value of the residual tests' groups. */
    private static final long[] Y = {1, 4, 8, 8};
    private static FakeCuda fake;
    private static CudaDevice device;

    @BeforeAll
    static void fakeDevice() {
        fake = FakeCuda.build();
        device = CudaDevice.open(fake.driver(), 0);
    }

    @AfterAll
    static void closeDevice() {
        if (device != null) {
            device.close();
        }
    }

    /** Fuses every Conv with whatever follows, recording the pairs; every other node gets a kernel that does nothing. */
    private static final class RecordingFusion implements CudaSubgraphProgram.EpilogueFusion {
        final List<String> pairs = new ArrayList<>();

        @Override
        public Optional<CudaKernelFactory> fuse(Node producer, Node activation) {
            if (!producer.opType().equals("Conv")) {
                return Optional.empty();
            }
            pairs.add(producer.name() + "+" + activation.name());
            return Optional.of(d -> NOTHING);
        }
    }

    private static final CompiledNode NOTHING = new CompiledNode() {
        @Override
        public void compute(KernelContext context) {}

        @Override
        public void close() {}
    };

    private static CudaSubgraphProgram compile(Graph group, Node fusedNode, CudaSubgraphProgram.EpilogueFusion fusion) {
        return CudaSubgraphProgram.compile(group, fusedNode, device, n -> NOTHING, CpuKernels::forNode, fusion);
    }

    @Test
    void aConvAndTheActivationThatAloneReadsItBecomeOneStep() {
        Graph g = group(node("Conv", List.of("x", "w", "b"), "c1"), node("Tanh", List.of("c1"), "t1"),
                node("Conv", List.of("t1", "w2"), "c2"), node("Relu", List.of("c2"), "y"));
        RecordingFusion fusion = new RecordingFusion();
        CudaSubgraphProgram program = compile(g, fused(List.of("x", "w", "b", "w2"), List.of("y")), fusion);
        assertEquals(List.of("Conv_c1+Tanh_t1", "Conv_c2+Relu_y"), fusion.pairs);
        assertEquals(2, program.stepCount());
        assertEquals(1, program.intermediateCount(), "t1 only: c1 and c2 are never written");
        CudaSubgraphProgram unfused = compile(g, fused(List.of("x", "w", "b", "w2"), List.of("y")),
                CudaSubgraphProgram.EpilogueFusion.NONE);
        assertEquals(4, unfused.stepCount());
        assertEquals(3, unfused.intermediateCount());
    }

    @Test
    void aConvOutputThatIsAlsoReadElsewhereOrIsAGroupOutputStaysItsOwnStep() {
        Graph readTwice = group(node("Conv", List.of("x", "w"), "c"), node("Relu", List.of("c"), "r"),
                node("Add", List.of("r", "c"), "y"));
        RecordingFusion fusion = new RecordingFusion();
        assertEquals(3, compile(readTwice, fused(List.of("x", "w"), List.of("y")), fusion).stepCount());
        Graph output = group(node("Conv", List.of("x", "w"), "c"), node("Relu", List.of("c"), "y"));
        assertEquals(2, compile(output, fused(List.of("x", "w"), List.of("c", "y")), fusion).stepCount());
        Graph secondInput = group(node("Conv", List.of("x", "w"), "c"), node("Mul", List.of("x", "c"), "y"));
        assertEquals(2, compile(secondInput, fused(List.of("x", "w"), List.of("y")), fusion).stepCount(),
                "the Conv's output is not input 0 of its reader");
        assertTrue(fusion.pairs.isEmpty(), fusion.pairs.toString());
    }

    @Test
    void theElementwiseFamilyOffersOneExpressionActivationsOnly() {
        Node leaky = node("LeakyRelu", List.of("c"), "y", Map.of("alpha", new Attribute.FloatValue("alpha", 0.25f)), 16);
        ElementwiseKernels.FusableActivation activation = ElementwiseKernels.fusableActivation(leaky).orElseThrow();
        assertTrue(activation.expression().contains("x0"), activation.expression());
        assertEquals(0.25f, activation.params()[0]);
        assertTrue(activation.helpers().contains("sigmoid("), "the helpers the expressions call");
        assertTrue(ElementwiseKernels.fusableActivation(node("Exp", List.of("c"), "y")).isEmpty(), "not an activation");
        assertTrue(ElementwiseKernels.fusableActivation(node("Add", List.of("c", "d"), "y")).isEmpty());
        // Clip-13 with constant bounds fuses with them as parameters; with a bound computed at run time it does not
        ValueInfo lo = new ValueInfo("lo", ElementType.FLOAT, new long[0], true, true,
                new dev.javaep.spi.TensorValue(ElementType.FLOAT, new long[0],
                        java.nio.ByteBuffer.allocate(4).order(java.nio.ByteOrder.LITTLE_ENDIAN).putFloat(0, -1.5f)));
        Node clip = new Node(1, "clip", "Clip", "", 13, List.of(Groups.value("c"), lo, Groups.value("hi")),
                List.of(Groups.value("y")), Map.of());
        assertTrue(ElementwiseKernels.fusableActivation(clip).isEmpty(), "hi is not a constant");
        Node clipLow = new Node(1, "clip", "Clip", "", 13, List.of(Groups.value("c"), lo), List.of(Groups.value("y")), Map.of());
        ElementwiseKernels.FusableActivation bounds = ElementwiseKernels.fusableActivation(clipLow).orElseThrow();
        assertEquals(-1.5f, bounds.params()[0]);
        assertEquals(Float.MAX_VALUE, bounds.params()[1]);
    }

    /** Fuses Conv + Add + any activation, and Conv + Relu/Tanh; records what it was asked. */
    private static final class ResidualRecordingFusion implements CudaSubgraphProgram.EpilogueFusion {
        final List<String> residuals = new ArrayList<>();
        final List<String> pairs = new ArrayList<>();

        @Override
        public Optional<CudaKernelFactory> fuse(Node producer, Node activation) {
            if (!producer.opType().equals("Conv") || !List.of("Relu", "Tanh").contains(activation.opType())) {
                return Optional.empty();
            }
            pairs.add(producer.name() + "+" + activation.name());
            return Optional.of(d -> NOTHING);
        }

        @Override
        public Optional<CudaKernelFactory> fuseResidual(Node conv, Node add, Node activation) {
            residuals.add(conv.name() + "+" + add.name() + "+" + activation.name());
            return Optional.of(d -> NOTHING);
        }
    }

    private static ValueInfo shaped(String name, long... shape) {
        return name == null ? null : new ValueInfo(name, ElementType.FLOAT, shape, true);
    }

    private static Node shapedNode(String op, String output, ValueInfo... inputs) {
        return new Node(output.hashCode(), op + "_" + output, op, "", 13, Arrays.asList(inputs), List.of(shaped(output, Y)),
                Map.of());
    }

    private static Node conv(String x, String w, String b, String y) {
        return shapedNode("Conv", y, shaped(x, Y), shaped(w, 4, 4, 3, 3), b == null ? null : shaped(b, 4));
    }

    private static Node fusedNode(List<String> inputs, List<String> outputs) {
        return new Node(1, "fused", "JavaCuda_fused", "javaep", 1,
                inputs.stream().map(n -> shaped(n, n.startsWith("w") ? new long[] {4, 4, 3, 3}
                        : n.startsWith("b") ? new long[] {4} : Y)).toList(),
                outputs.stream().map(n -> shaped(n, Y)).toList(), Map.of());
    }

    private static List<String> names(List<ValueInfo> values) {
        return values.stream().map(v -> v == null ? null : v.name()).toList();
    }

    @Test
    void convAddReluBecomesOneStepReadingTheResidualAsInput3() {
        for (boolean residualFirst : new boolean[] {false, true}) {
            Node add = residualFirst ? shapedNode("Add", "a", shaped("r", Y), shaped("c", Y))
                    : shapedNode("Add", "a", shaped("c", Y), shaped("r", Y));
            Graph g = group(conv("x", "w", "b", "c"), add, shapedNode("Relu", "y", shaped("a", Y)));
            ResidualRecordingFusion fusion = new ResidualRecordingFusion();
            CudaSubgraphProgram program = compile(g, fusedNode(List.of("x", "w", "b", "r"), List.of("y")), fusion);
            assertEquals(List.of("Conv_c+Add_a+Relu_y"), fusion.residuals);
            assertEquals(1, program.stepCount(), "residual first: " + residualFirst);
            Node step = program.stepNodes().getFirst();
            assertEquals("Conv+Add+Relu", step.opType());
            assertEquals(Arrays.asList("x", "w", "b", "r"), names(step.inputs()));
            assertEquals(List.of("y"), names(step.outputs()));
            assertEquals(0, program.intermediateCount(), "c and a are never written");
        }
    }

    @Test
    void aResidualAnEarlierStepComputesFusesAndStaysAliveUntilTheFusedStep() {
        // ResNet: the block's input (an earlier Relu's output) is the residual of the block's last Conv
        Graph g = group(conv("x", "w0", "b0", "c0"), shapedNode("Relu", "r", shaped("c0", Y)), conv("r", "w", null, "c"),
                shapedNode("Add", "a", shaped("c", Y), shaped("r", Y)), shapedNode("Relu", "y", shaped("a", Y)));
        ResidualRecordingFusion fusion = new ResidualRecordingFusion();
        CudaSubgraphProgram program = compile(g, fusedNode(List.of("x", "w0", "b0", "w"), List.of("y")), fusion);
        assertEquals(List.of("Conv_c0+Relu_r"), fusion.pairs);
        assertEquals(List.of("Conv_c+Add_a+Relu_y"), fusion.residuals);
        assertEquals(2, program.stepCount());
        assertEquals(Arrays.asList("r", "w", null, "r"), names(program.stepNodes().get(1).inputs()),
                "no bias: input 2 omitted; the residual is input 3");
        assertEquals(1, program.intermediateCount(), "r, read by both steps of the second Conv");
    }

    @Test
    void theFusedStepRunsWhereTheAddWasSoThatALaterResidualExists() {
        // ResNet's downsampling block: the shortcut's Conv comes after the block's second Conv; both feed the Add
        Graph g = group(conv("x", "w", "b", "c"), conv("x", "wd", "bd", "d"), shapedNode("Add", "a", shaped("c", Y), shaped("d", Y)),
                shapedNode("Relu", "y", shaped("a", Y)));
        ResidualRecordingFusion fusion = new ResidualRecordingFusion();
        CudaSubgraphProgram program = compile(g, fusedNode(List.of("x", "w", "b", "wd", "bd"), List.of("y")), fusion);
        assertEquals(List.of("Conv_c+Add_a+Relu_y"), fusion.residuals, "the first Conv only: the Add is taken");
        assertEquals(List.of("Conv", "Conv+Add+Relu"), program.stepNodes().stream().map(Node::opType).toList());
        assertEquals(Arrays.asList("x", "w", "b", "d"), names(program.stepNodes().get(1).inputs()));
        Graph late = group(conv("x", "w", "b", "c"), shapedNode("Sigmoid", "r", shaped("x", Y)),
                shapedNode("Add", "a", shaped("c", Y), shaped("r", Y)), shapedNode("Relu", "y", shaped("a", Y)));
        CudaSubgraphProgram lateProgram = compile(late, fusedNode(List.of("x", "w", "b"), List.of("y")), fusion);
        assertEquals(List.of("Sigmoid", "Conv+Add+Relu"), lateProgram.stepNodes().stream().map(Node::opType).toList());
    }

    @Test
    void chainsThatCannotFuseStayApart() {
        ResidualRecordingFusion fusion = new ResidualRecordingFusion();
        // a broadcast residual, and one of unknown shape
        for (long[] shape : new long[][] {{1, 4, 1, 1}, {-1, 4, 8, 8}}) {
            Graph broadcast = group(conv("x", "w", "b", "c"), shapedNode("Add", "a", shaped("c", Y), shaped("r", shape)),
                    shapedNode("Relu", "y", shaped("a", Y)));
            assertEquals(3, compile(broadcast, fusedNode(List.of("x", "w", "b", "r"), List.of("y")), fusion).stepCount(),
                    Arrays.toString(shape));
        }
        // the Add's output is also read elsewhere, or is an output of the group
        Graph addReadTwice = group(conv("x", "w", "b", "c"), shapedNode("Add", "a", shaped("c", Y), shaped("r", Y)),
                shapedNode("Relu", "y", shaped("a", Y)), shapedNode("Mul", "z", shaped("a", Y), shaped("a", Y)));
        assertEquals(4, compile(addReadTwice, fusedNode(List.of("x", "w", "b", "r"), List.of("y", "z")), fusion).stepCount());
        Graph addIsOutput = group(conv("x", "w", "b", "c"), shapedNode("Add", "a", shaped("c", Y), shaped("r", Y)),
                shapedNode("Relu", "y", shaped("a", Y)));
        assertEquals(3, compile(addIsOutput, fusedNode(List.of("x", "w", "b", "r"), List.of("a", "y")), fusion).stepCount());
        // the Conv's output read twice by the Add
        Graph twice = group(conv("x", "w", "b", "c"), shapedNode("Add", "a", shaped("c", Y), shaped("c", Y)),
                shapedNode("Relu", "y", shaped("a", Y)));
        assertEquals(3, compile(twice, fusedNode(List.of("x", "w", "b"), List.of("y")), fusion).stepCount());
        assertTrue(fusion.residuals.isEmpty(), fusion.residuals.toString());
    }

    @Test
    void theEpilogueOnlyFusionLeavesTheAddAlone() {
        Graph g = group(conv("x", "w", "b", "c"), shapedNode("Add", "a", shaped("c", Y), shaped("r", Y)),
                shapedNode("Relu", "y", shaped("a", Y)));
        CudaSubgraphProgram.EpilogueFusion epilogueOnly = (producer, activation) -> Optional.empty();
        assertEquals(3, compile(g, fusedNode(List.of("x", "w", "b", "r"), List.of("y")), epilogueOnly).stepCount());
        assertTrue(CudaSubgraphProgram.EpilogueFusion.CONV_ACTIVATION.fuseResidual(g.nodes().get(0), g.nodes().get(1),
                g.nodes().get(2)).isEmpty(), "javaep.cuda.fusion=epilogue: the fusion as it was before residuals");
    }

    @Test
    void thePropertySelectsTheFusion() {
        Map<String, CudaSubgraphProgram.EpilogueFusion> expected = new java.util.LinkedHashMap<>();
        expected.put("epilogue", CudaSubgraphProgram.EpilogueFusion.CONV_ACTIVATION);
        expected.put("off", CudaSubgraphProgram.EpilogueFusion.NONE);
        expected.put("on", CudaSubgraphProgram.EpilogueFusion.CONV_RESIDUAL);
        expected.put("cudnn", CudaSubgraphProgram.EpilogueFusion.CONV_RESIDUAL_CUDNN);
        if (System.getenv("JAVAEP_CUDA_FUSION") == null) {
            expected.put(null, CudaSubgraphProgram.EpilogueFusion.CONV_RESIDUAL);
        }
        expected.forEach((asked, fusion) -> SystemProperties.with(
                java.util.Collections.singletonMap(CudaSubgraphProgram.FUSION_PROPERTY, asked),
                () -> assertSame(fusion, CudaSubgraphProgram.EpilogueFusion.selected(), String.valueOf(asked))));
    }

    @Test
    void theStepBreakdownSumsDeviceTimesPerKindAndOpTypePerRun() {
        SystemProperties.with(Map.of(CudaStepBreakdown.PROPERTY, "false"),
                () -> assertFalse(CudaStepBreakdown.enabled(), "off unless asked"));
        SystemProperties.with(Map.of(CudaStepBreakdown.PROPERTY, "true"), () -> assertTrue(CudaStepBreakdown.enabled()));
        CudaStepBreakdown.reset();
        assertEquals("(no steps were profiled)\n", CudaStepBreakdown.table(null));
        List<String> released = new ArrayList<>();
        for (int run = 0; run < 2; run++) {
            record(CudaStepBreakdown.step("g", "cuDNN conv + epilogue pass"), "Conv+Relu", 3_000_000, released);
            record(CudaStepBreakdown.step("g", "elementwise"), "Add", 1_000_000, released);
            CudaStepBreakdown.step("g", CudaStepBreakdown.HOST_KIND).hostStep("Shape", "s", 0, 500_000);
            CudaStepBreakdown.runQueued("g");
        }
        String table = CudaStepBreakdown.table("g");
        assertTrue(table.startsWith("2 profiled Runs (eager, CUDA events around each step); GPU 4.000 ms per Run"), table);
        assertTrue(table.contains("| cuDNN conv + epilogue pass | 1.0 | 3.000 | 75.0% |"), table);
        assertTrue(table.contains("| elementwise | 1.0 | 1.000 | 25.0% |"), table);
        assertTrue(table.contains("| Conv+Relu | 1.0 | 3.000 | 75.0% |"), table);
        assertTrue(table.contains("| " + CudaStepBreakdown.HOST_KIND + " | 1.0 | 0.500 | host |"), table);
        assertEquals(4, released.size(), "every timing given back once read");
        assertEquals("(no steps were profiled)\n", CudaStepBreakdown.table("another group"));
        CudaStepBreakdown.reset();
        assertTrue(CudaStepBreakdown.rows().isEmpty());
    }

    /** A device step whose timing the device has passed, {@code nanos} long. */
    private static void record(dev.javaep.spi.StepProfiler profiler, String op, long nanos, List<String> released) {
        profiler.deviceStep(op, op, 0, 0, new dev.javaep.spi.StepProfiler.DeviceTiming() {
            @Override
            public long deviceNanos(boolean wait) {
                return nanos;
            }

            @Override
            public void release() {
                released.add(op);
            }
        });
    }
}
