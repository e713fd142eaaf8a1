package dev.javaep.cuda.kernel;

import static dev.javaep.cuda.kernel.Groups.fused;
import static dev.javaep.cuda.kernel.Groups.group;
import static dev.javaep.cuda.kernel.Groups.node;
import static org.junit.jupiter.api.Assertions.assertEquals;
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
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The group planning step that makes one step of a Conv and the activation after it (over the stand-in libcuda; the
 * kernels are never run): which pairs fuse, what the fused step reads and writes, and the activations the elementwise
 * family offers for it.
 */
class EpilogueFusionTest {
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
}
