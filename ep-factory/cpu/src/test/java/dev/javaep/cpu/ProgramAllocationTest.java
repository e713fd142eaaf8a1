package dev.javaep.cpu;

import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.KernelThreads;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Graph;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Node;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ValueInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Issue 13: a steady-state Run of a compiled group allocates no Java heap, kernels included. Each case compiles a
 * one-node program and runs it on the same host tensors (a context that hands back the same output tensors, as the
 * bridge does once ORT's answers settle), on a kernel pool of two threads so the parallel paths run too. Allocation
 * per Run is deterministic once the JIT has compiled the path, when it has is not: the lowest batch counts, and
 * under 1 byte per Run is none (the measurement's own few hundred bytes per batch; one object per Run is 16 or more).
 */
class ProgramAllocationTest {
    private static final int BATCH_RUNS = 5_000;
    private static final int MAX_BATCHES = 200;
    private static final ElementType F = ElementType.FLOAT;
    private static final ElementType I64 = ElementType.INT64;
    private static KernelThreads threads;

    @BeforeAll
    static void pool() {
        threads = KernelThreads.acquire(2);
    }

    @AfterAll
    static void releasePool() {
        KernelThreads.release(threads);
    }

    /** One input: its shape and type, and for int64 its values (a shape, axes, starts). */
    record In(ElementType type, long[] shape, long[] values) {
        static In f(long... shape) {
            return new In(F, shape, null);
        }

        static In longs(long... values) {
            return new In(I64, new long[] {values.length}, values);
        }
    }

    record Case(String name, String op, int version, List<In> inputs, int outputs, ElementType outputType,
                Attribute... attributes) {
        Case(String name, String op, int version, List<In> inputs, int outputs, Attribute... attributes) {
            this(name, op, version, inputs, outputs, F, attributes);
        }

        @Override
        public String toString() {
            return name;
        }
    }

    static List<Case> cases() {
        return List.of(
                new Case("Relu", "Relu", 14, List.of(In.f(4)), 1),
                new Case("Add, same shapes", "Add", 14, List.of(In.f(4), In.f(4)), 1),
                new Case("Mul, bias broadcast", "Mul", 14, List.of(In.f(2, 3, 8), In.f(8)), 1),
                new Case("Pow, broadcast", "Pow", 15, List.of(In.f(2, 8), In.f(1)), 1),
                new Case("Less, broadcast", "Less", 13, List.of(In.f(2, 8), In.f(8)), 1, ElementType.BOOL),
                new Case("Where", "Where", 16, List.of(new In(ElementType.BOOL, new long[] {8}, null), In.f(2, 8), In.f(8)), 1),
                new Case("Sum of 3", "Sum", 13, List.of(In.f(8), In.f(2, 8), In.f(8)), 1),
                new Case("Sigmoid", "Sigmoid", 13, List.of(In.f(64)), 1),
                new Case("Clip", "Clip", 13, List.of(In.f(64)), 1),
                new Case("Sqrt", "Sqrt", 13, List.of(In.f(64)), 1),
                new Case("Cast to int64", "Cast", 19, List.of(In.f(64)), 1, I64, new Attribute.IntValue("to", 7)),
                new Case("MatMul", "MatMul", 13, List.of(In.f(16, 32), In.f(32, 16)), 1),
                new Case("MatMul, batched", "MatMul", 13, List.of(In.f(2, 8, 16), In.f(16, 8)), 1),
                new Case("Gemm", "Gemm", 13, List.of(In.f(16, 32), In.f(32, 16), In.f(16)), 1),
                new Case("Conv 3x3", "Conv", 11, List.of(In.f(1, 4, 16, 16), In.f(8, 4, 3, 3), In.f(8)), 1,
                        ints("pads", 1, 1, 1, 1)),
                new Case("Conv depthwise", "Conv", 11, List.of(In.f(1, 4, 16, 16), In.f(4, 1, 3, 3)), 1,
                        ints("pads", 1, 1, 1, 1), new Attribute.IntValue("group", 4)),
                new Case("MaxPool", "MaxPool", 12, List.of(In.f(1, 4, 16, 16)), 1, ints("kernel_shape", 2, 2), ints("strides", 2, 2)),
                new Case("AveragePool", "AveragePool", 19, List.of(In.f(1, 4, 16, 16)), 1, ints("kernel_shape", 3, 3)),
                new Case("GlobalAveragePool", "GlobalAveragePool", 1, List.of(In.f(1, 4, 16, 16)), 1),
                new Case("BatchNormalization", "BatchNormalization", 15,
                        List.of(In.f(1, 4, 8, 8), In.f(4), In.f(4), In.f(4), In.f(4)), 1),
                new Case("LayerNormalization", "LayerNormalization", 17, List.of(In.f(4, 32), In.f(32), In.f(32)), 1),
                new Case("Softmax", "Softmax", 13, List.of(In.f(4, 32)), 1),
                new Case("ReduceMean", "ReduceMean", 18, List.of(In.f(4, 32), In.longs(1)), 1),
                new Case("ReduceMax over H, W", "ReduceMax", 13, List.of(In.f(1, 4, 8, 8)), 1, ints("axes", 2, 3)),
                new Case("ReduceLogSumExp", "ReduceLogSumExp", 13, List.of(In.f(4, 32)), 1, ints("axes", 0)),
                new Case("ArgMax", "ArgMax", 13, List.of(In.f(4, 32)), 1, I64, new Attribute.IntValue("axis", 0)),
                new Case("Reshape", "Reshape", 14, List.of(In.f(4, 32), In.longs(8, 16)), 1),
                new Case("Flatten", "Flatten", 13, List.of(In.f(2, 4, 8)), 1),
                new Case("Unsqueeze", "Unsqueeze", 13, List.of(In.f(4, 32), In.longs(0)), 1),
                new Case("Transpose", "Transpose", 13, List.of(In.f(4, 8, 16)), 1, ints("perm", 2, 0, 1)),
                new Case("Concat", "Concat", 13, List.of(In.f(4, 8), In.f(4, 16)), 1, new Attribute.IntValue("axis", 1)),
                new Case("Slice", "Slice", 13, List.of(In.f(4, 32), In.longs(1, 2), In.longs(3, 30), In.longs(0, 1)), 1),
                new Case("Split", "Split", 18, List.of(In.f(4, 32)), 2, new Attribute.IntValue("axis", 1),
                        new Attribute.IntValue("num_outputs", 2)),
                new Case("Gather", "Gather", 13, List.of(In.f(16, 8), In.longs(3, 1, 7)), 1));
    }

    private static Attribute ints(String name, long... values) {
        return new Attribute.IntList(name, Arrays.stream(values).boxed().toList());
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void steadyStateRunAllocatesNothing(Case c) {
        try (Arena arena = Arena.ofShared()) {
            List<ValueInfo> inputs = new ArrayList<>();
            List<Tensor> tensors = new ArrayList<>();
            for (int i = 0; i < c.inputs().size(); i++) {
                In in = c.inputs().get(i);
                inputs.add(new ValueInfo("x" + i, in.type(), in.shape(), true));
                HostTensor t = HostTensor.allocate(arena, in.type(), in.shape());
                if (in.values() != null) {
                    for (int k = 0; k < in.values().length; k++) {
                        t.data().setAtIndex(ValueLayout.JAVA_LONG, k, in.values()[k]);
                    }
                } else if (in.type() == F) {
                    for (long k = 0; k < t.elementCount(); k++) {
                        t.data().setAtIndex(ValueLayout.JAVA_FLOAT, k, (k % 7) - 3f);
                    }
                }
                tensors.add(t);
            }
            List<ValueInfo> outputs = new ArrayList<>();
            for (int i = 0; i < c.outputs(); i++) {
                outputs.add(new ValueInfo("y" + i, c.outputType(), null, true));
            }
            Map<String, Attribute> attributes = new HashMap<>();
            for (Attribute a : c.attributes()) {
                attributes.put(a.name(), a);
            }
            Node node = new Node(1, c.name(), c.op(), "", c.version(), inputs, outputs, attributes);
            Node fused = new Node(2, "fused", "fused", "", 1, inputs, outputs, Map.of());
            CpuSubgraphProgram program = CpuSubgraphProgram.compile(new Graph("g", List.of(node), inputs, outputs), fused, threads);
            Context context = new Context(arena, tensors, c.outputs(), c.outputType());
            double lowest = Double.MAX_VALUE;
            try {
                for (int batch = 0; batch < MAX_BATCHES && lowest >= 1; batch++) {
                    long before = allocatedBytes();
                    for (int r = 0; r < BATCH_RUNS; r++) {
                        program.compute(context);
                    }
                    lowest = Math.min(lowest, (allocatedBytes() - before) / (double) BATCH_RUNS);
                }
            } finally {
                program.close();
            }
            System.out.printf("[ProgramAllocationTest] %s: %.1f bytes per Run%n", c.name(), lowest);
            assertSame(KernelThreads.INLINE, KernelThreads.current(), "the Run's pool is left behind on its thread");
            assertTrue(lowest < 1, c.name() + ": a steady-state Run allocates " + lowest + " bytes of Java heap");
        }
    }

    /** Hands the same input tensors every Run and the same output tensor while the shape asked for stays the same. */
    private static final class Context implements KernelContext {
        private final Arena arena;
        private final List<Tensor> inputs;
        private final Tensor[] outputs;
        private final ElementType outputType;

        Context(Arena arena, List<Tensor> inputs, int outputCount, ElementType outputType) {
            this.arena = arena;
            this.outputType = outputType;
            this.inputs = inputs;
            this.outputs = new Tensor[outputCount];
        }

        @Override
        public int inputCount() {
            return inputs.size();
        }

        @Override
        public int outputCount() {
            return outputs.length;
        }

        @Override
        public Tensor input(int index) {
            return inputs.get(index);
        }

        @Override
        public Tensor output(int index, long[] shape) {
            if (outputs[index] == null || !Arrays.equals(outputs[index].shape(), shape)) {
                outputs[index] = HostTensor.allocate(arena, outputType, shape);
            }
            return outputs[index];
        }
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }
}
