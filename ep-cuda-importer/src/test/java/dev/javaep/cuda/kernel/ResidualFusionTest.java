package dev.javaep.cuda.kernel;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.driver.FakeCuda;
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
 * The planning step that makes one step of Conv → Add → activation (ResNet's block tail), the Add's other input becoming
 * the residual the Conv's step adds (over the stand-in libcuda; the kernels are never run): when the chain fuses, what
 * the fused step reads, and each reason it stays apart; and which fusion {@code javaep.cuda.fusion} selects.
 */
class ResidualFusionTest {
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

    /** Fuses Conv + Add + any activation, and Conv + Relu/Tanh; records what it was asked. */
    private static final class RecordingFusion implements CudaSubgraphProgram.EpilogueFusion {
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

    private static final CompiledNode NOTHING = new CompiledNode() {
        @Override
        public void compute(KernelContext context) {}

        @Override
        public void close() {}
    };

    private static ValueInfo value(String name, long... shape) {
        return name == null ? null : new ValueInfo(name, ElementType.FLOAT, shape, true);
    }

    private static Node node(String op, String output, ValueInfo... inputs) {
        return new Node(output.hashCode(), op + "_" + output, op, "", 13, Arrays.asList(inputs), List.of(value(output, Y)),
                Map.of());
    }

    private static Node conv(String x, String w, String b, String y) {
        return node("Conv", y, value(x, Y), value(w, 4, 4, 3, 3), b == null ? null : value(b, 4));
    }

    private static Node fusedNode(List<String> inputs, List<String> outputs) {
        return new Node(1, "fused", "JavaCuda_fused", "javaep", 1,
                inputs.stream().map(n -> value(n, n.startsWith("w") ? new long[] {4, 4, 3, 3}
                        : n.startsWith("b") ? new long[] {4} : Y)).toList(),
                outputs.stream().map(n -> value(n, Y)).toList(), Map.of());
    }

    private static CudaSubgraphProgram compile(Graph group, Node fusedNode, CudaSubgraphProgram.EpilogueFusion fusion) {
        return CudaSubgraphProgram.compile(group, fusedNode, device, n -> NOTHING, CpuKernels::forNode, fusion);
    }

    private static Graph group(Node... nodes) {
        return new Graph("group", List.of(nodes), List.of(), List.of());
    }

    private static List<String> names(List<ValueInfo> values) {
        return values.stream().map(v -> v == null ? null : v.name()).toList();
    }

    @Test
    void convAddReluBecomesOneStepReadingTheResidualAsInput3() {
        for (boolean residualFirst : new boolean[] {false, true}) {
            Node add = residualFirst ? node("Add", "a", value("r", Y), value("c", Y)) : node("Add", "a", value("c", Y), value("r", Y));
            Graph g = group(conv("x", "w", "b", "c"), add, node("Relu", "y", value("a", Y)));
            RecordingFusion fusion = new RecordingFusion();
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
        Graph g = group(conv("x", "w0", "b0", "c0"), node("Relu", "r", value("c0", Y)), conv("r", "w", null, "c"),
                node("Add", "a", value("c", Y), value("r", Y)), node("Relu", "y", value("a", Y)));
        RecordingFusion fusion = new RecordingFusion();
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
        Graph g = group(conv("x", "w", "b", "c"), conv("x", "wd", "bd", "d"), node("Add", "a", value("c", Y), value("d", Y)),
                node("Relu", "y", value("a", Y)));
        RecordingFusion fusion = new RecordingFusion();
        CudaSubgraphProgram program = compile(g, fusedNode(List.of("x", "w", "b", "wd", "bd"), List.of("y")), fusion);
        assertEquals(List.of("Conv_c+Add_a+Relu_y"), fusion.residuals, "the first Conv only: the Add is taken");
        assertEquals(List.of("Conv", "Conv+Add+Relu"), program.stepNodes().stream().map(Node::opType).toList());
        assertEquals(Arrays.asList("x", "w", "b", "d"), names(program.stepNodes().get(1).inputs()));
        Graph late = group(conv("x", "w", "b", "c"), node("Sigmoid", "r", value("x", Y)),
                node("Add", "a", value("c", Y), value("r", Y)), node("Relu", "y", value("a", Y)));
        CudaSubgraphProgram lateProgram = compile(late, fusedNode(List.of("x", "w", "b"), List.of("y")), fusion);
        assertEquals(List.of("Sigmoid", "Conv+Add+Relu"), lateProgram.stepNodes().stream().map(Node::opType).toList());
    }

    @Test
    void chainsThatCannotFuseStayApart() {
        RecordingFusion fusion = new RecordingFusion();
        // a broadcast residual, and one of unknown shape
        for (long[] shape : new long[][] {{1, 4, 1, 1}, {-1, 4, 8, 8}}) {
            Graph broadcast = group(conv("x", "w", "b", "c"), node("Add", "a", value("c", Y), value("r", shape)),
                    node("Relu", "y", value("a", Y)));
            assertEquals(3, compile(broadcast, fusedNode(List.of("x", "w", "b", "r"), List.of("y")), fusion).stepCount(),
                    Arrays.toString(shape));
        }
        // the Add's output is also read elsewhere, or is an output of the group
        Graph addReadTwice = group(conv("x", "w", "b", "c"), node("Add", "a", value("c", Y), value("r", Y)),
                node("Relu", "y", value("a", Y)), node("Mul", "z", value("a", Y), value("a", Y)));
        assertEquals(4, compile(addReadTwice, fusedNode(List.of("x", "w", "b", "r"), List.of("y", "z")), fusion).stepCount());
        Graph addIsOutput = group(conv("x", "w", "b", "c"), node("Add", "a", value("c", Y), value("r", Y)),
                node("Relu", "y", value("a", Y)));
        assertEquals(3, compile(addIsOutput, fusedNode(List.of("x", "w", "b", "r"), List.of("a", "y")), fusion).stepCount());
        // the Conv's output read twice by the Add
        Graph twice = group(conv("x", "w", "b", "c"), node("Add", "a", value("c", Y), value("c", Y)),
                node("Relu", "y", value("a", Y)));
        assertEquals(3, compile(twice, fusedNode(List.of("x", "w", "b"), List.of("y")), fusion).stepCount());
        assertTrue(fusion.residuals.isEmpty(), fusion.residuals.toString());
    }

    @Test
    void theEpilogueOnlyFusionLeavesTheAddAlone() {
        Graph g = group(conv("x", "w", "b", "c"), node("Add", "a", value("c", Y), value("r", Y)),
                node("Relu", "y", value("a", Y)));
        CudaSubgraphProgram.EpilogueFusion epilogueOnly = (producer, activation) -> Optional.empty();
        assertEquals(3, compile(g, fusedNode(List.of("x", "w", "b", "r"), List.of("y")), epilogueOnly).stepCount());
        assertTrue(CudaSubgraphProgram.EpilogueFusion.CONV_ACTIVATION.fuseResidual(g.nodes().get(0), g.nodes().get(1),
                g.nodes().get(2)).isEmpty(), "javaep.cuda.fusion=epilogue: the fusion as it was before residuals");
    }

    @Test
    void thePropertySelectsTheFusion() {
        String previous = System.getProperty(CudaSubgraphProgram.FUSION_PROPERTY);
        try {
            System.clearProperty(CudaSubgraphProgram.FUSION_PROPERTY);
            if (System.getenv("JAVAEP_CUDA_FUSION") == null) {
                assertSame(CudaSubgraphProgram.EpilogueFusion.CONV_RESIDUAL_CUDNN, CudaSubgraphProgram.EpilogueFusion.selected());
            }
            System.setProperty(CudaSubgraphProgram.FUSION_PROPERTY, "epilogue");
            assertSame(CudaSubgraphProgram.EpilogueFusion.CONV_ACTIVATION, CudaSubgraphProgram.EpilogueFusion.selected());
            System.setProperty(CudaSubgraphProgram.FUSION_PROPERTY, "off");
            assertSame(CudaSubgraphProgram.EpilogueFusion.NONE, CudaSubgraphProgram.EpilogueFusion.selected());
            System.setProperty(CudaSubgraphProgram.FUSION_PROPERTY, "on");
            assertSame(CudaSubgraphProgram.EpilogueFusion.CONV_RESIDUAL_CUDNN, CudaSubgraphProgram.EpilogueFusion.selected());
        } finally {
            if (previous == null) {
                System.clearProperty(CudaSubgraphProgram.FUSION_PROPERTY);
            } else {
                System.setProperty(CudaSubgraphProgram.FUSION_PROPERTY, previous);
            }
        }
    }

    @Test
    void theStepBreakdownSumsDeviceTimesPerKindAndOpTypePerRun() {
        String previous = System.getProperty(CudaStepBreakdown.PROPERTY);
        try {
            System.setProperty(CudaStepBreakdown.PROPERTY, "false");
            assertFalse(CudaStepBreakdown.enabled(), "off unless asked");
            System.setProperty(CudaStepBreakdown.PROPERTY, "true");
            assertTrue(CudaStepBreakdown.enabled());
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
        } finally {
            if (previous == null) {
                System.clearProperty(CudaStepBreakdown.PROPERTY);
            } else {
                System.setProperty(CudaStepBreakdown.PROPERTY, previous);
            }
        }
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
