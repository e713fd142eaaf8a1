package dev.javaep.harness.kernels;

import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.KernelDefinition;
import dev.javaep.spi.KernelInfo;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.OpKernel;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * A host-memory EP written against the per-op kernel path only: float {@code Add} (opset 7..14),
 * {@code Relu} (6..14) and {@code LeakyRelu} (6 and every later version) kernels in ORT's kernel registry,
 * no compiled groups. It answers {@link NodeSupport#kernel()} for those ops and for {@code Sub}, for which it
 * registers no kernel, and leaves element types to ORT's kernel lookup: javaep must decline what ORT finds
 * no kernel for. Static counters let tests see what ORT did with the kernels. Faults on purpose: a LeakyRelu
 * with a negative alpha is refused at kernel creation, and Relu/LeakyRelu throw on a NaN input.
 */
public final class JavaKernelRegistryTestExecutionProvider implements ExecutionProvider {
    public static final String NAME = "JavaKernelRegistryTestExecutionProvider";

    /** What a kernel saw through {@link KernelInfo} when ORT created it. */
    public record CreatedKernel(String opType, String domain, int sinceVersion, String nodeName, int inputCount,
                                int outputCount, List<ElementType> inputTypes, ElementType outputType,
                                float alpha, String absentString, List<Long> absentInts) {}

    /** Kernels ORT created, in order. */
    public static final List<CreatedKernel> CREATED = new CopyOnWriteArrayList<>();
    /** Compute calls per op type. */
    public static final Map<String, AtomicInteger> COMPUTES = new ConcurrentHashMap<>();
    /** Kernels ORT released ({@code OrtKernelImpl::Release} → {@link OpKernel#close()}). */
    public static final AtomicInteger CLOSED = new AtomicInteger();

    private static final Set<String> CLAIMED = Set.of("Add", "Relu", "LeakyRelu", "Sub");
    private static final Map<String, Set<ElementType>> FLOAT_T = Map.of("T", Set.of(ElementType.FLOAT));

    public static void resetCounters() {
        CREATED.clear();
        COMPUTES.clear();
        CLOSED.set(0);
    }

    public static int computes(String opType) {
        AtomicInteger count = COMPUTES.get(opType);
        return count == null ? 0 : count.get();
    }

    @Override
    public String name() {
        return NAME;
    }

    @Override
    public NodeSupport support(Node node) {
        if (!node.isOnnxDomain() || !CLAIMED.contains(node.opType())) {
            return NodeSupport.declined(DeclineCode.OP_TYPE, "this test EP has per-op kernels for Add, Relu and LeakyRelu");
        }
        // Opset ranges and element types are left to ORT's lookup in the registered kernels.
        return NodeSupport.kernel();
    }

    @Override
    public List<KernelDefinition> kernels() {
        // Add's input 1 and Relu's output are declared in host memory: nothing changes on this host EP, but ORT
        // accepts the declarations (KernelDefBuilder_SetInputMemType/_SetOutputMemType) and plans around them.
        return List.of(
                new KernelDefinition("Add", "", 7, 14, FLOAT_T, Set.of(1), Set.of(),
                        info -> new CountingKernel(record(info), AddKernel.INSTANCE)),
                new KernelDefinition("Relu", "", 6, 14, FLOAT_T, Set.of(), Set.of(0),
                        info -> new CountingKernel(record(info), new Unary(0f))),
                KernelDefinition.of("LeakyRelu", 6, 16, FLOAT_T, info -> {
                    CreatedKernel created = record(info);
                    if (created.alpha() < 0) {
                        throw new IllegalArgumentException("this test EP refuses a negative alpha (fault injection)");
                    }
                    return new CountingKernel(created, new Unary(created.alpha()));
                }),
                // Never claimed (support() does not answer kernel() for Identity): registered to prove a
                // constraint over every fixed-size type registers, as device EPs' copy kernels need.
                KernelDefinition.of("Identity", 16, 16, Map.of("V", KernelDefinition.allFixedSizeTypes()), info -> {
                    throw new IllegalStateException("Identity is registered, never claimed");
                }));
    }

    /** Reads the node through KernelInfo, as a real kernel would, and keeps what it saw for the tests. */
    private static CreatedKernel record(KernelInfo info) {
        List<ElementType> inputTypes = new ArrayList<>();
        for (int i = 0; i < info.inputCount(); i++) {
            inputTypes.add(info.inputType(i));
        }
        CreatedKernel created = new CreatedKernel(info.opType(), info.domain(), info.sinceVersion(), info.nodeName(),
                info.inputCount(), info.outputCount(), List.copyOf(inputTypes), info.outputType(0),
                info.floatAttribute("alpha", 0.01f), info.stringAttribute("no_such_string", "absent"),
                info.intsAttribute("no_such_ints", List.of(-1L)));
        CREATED.add(created);
        return created;
    }

    /** Counts computes and releases around the real kernel. */
    private record CountingKernel(CreatedKernel created, OpKernel kernel) implements OpKernel {
        @Override
        public void compute(KernelContext context) {
            COMPUTES.computeIfAbsent(created.opType(), k -> new AtomicInteger()).incrementAndGet();
            kernel.compute(context);
        }

        @Override
        public void close() {
            CLOSED.incrementAndGet();
        }
    }

    /** y = x for x ≥ 0, alpha·x otherwise: Relu with alpha 0 (never -0, as ORT's Relu), LeakyRelu with the node's alpha. */
    private record Unary(float alpha) implements OpKernel {
        @Override
        public void compute(KernelContext context) {
            Tensor x = context.input(0);
            Tensor y = context.output(0, x.shape());
            MemorySegment in = x.data();
            MemorySegment out = y.data();
            for (long i = 0, n = x.elementCount(); i < n; i++) {
                float v = in.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                if (Float.isNaN(v)) {
                    throw new ArithmeticException("this test kernel refuses NaN (fault injection)");
                }
                out.setAtIndex(ValueLayout.JAVA_FLOAT, i, alpha == 0 ? Math.max(v, 0f) : v >= 0 ? v : alpha * v);
            }
        }
    }

    /** c = a + b with ONNX multidirectional broadcasting. */
    private enum AddKernel implements OpKernel {
        INSTANCE;

        @Override
        public void compute(KernelContext context) {
            Tensor a = context.input(0);
            Tensor b = context.input(1);
            long[] shape = Broadcasting.multidirectional(a.shape(), b.shape());
            Tensor c = context.output(0, shape);
            int rank = shape.length;
            long[] aStrides = Broadcasting.strides(a.shape(), rank);
            long[] bStrides = Broadcasting.strides(b.shape(), rank);
            long[] index = new long[rank];
            for (long i = 0, n = c.elementCount(); i < n; i++) {
                long ai = 0;
                long bi = 0;
                for (int d = 0; d < rank; d++) {
                    ai += index[d] * aStrides[d];
                    bi += index[d] * bStrides[d];
                }
                c.data().setAtIndex(ValueLayout.JAVA_FLOAT, i, a.data().getAtIndex(ValueLayout.JAVA_FLOAT, ai)
                        + b.data().getAtIndex(ValueLayout.JAVA_FLOAT, bi));
                for (int d = rank - 1; d >= 0 && ++index[d] == shape[d]; d--) {
                    index[d] = 0;
                }
            }
        }
    }
}
