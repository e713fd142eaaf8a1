package dev.javaep.harness.abi;

import dev.javaep.harness.TestExecutionProvider;
import dev.javaep.harness.TestHostFactory;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.HardwareDevice;
import dev.javaep.spi.KernelDefinition;
import dev.javaep.spi.KernelInfo;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.OpKernel;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.function.Consumer;

/**
 * A host EP for the graph and per-op kernel probes: {@link #onSupport} runs inside GetCapability for every node
 * it is shown (while ORT's {@code OrtNode} behind {@link Node#id()} is alive, so a probe can call graph slots on
 * it), and it claims Transpose, Pad, Concat, ThresholdedRelu and ai.onnx.ml Scaler through per-op kernels whose
 * creation records what {@link KernelInfo} read. The kernels are created at session initialization and never run.
 * Listed in the test classes' {@code META-INF/services}.
 */
public final class ProbeHostFactory extends TestHostFactory {
    public static final String NAME = "JavaProbeHostExecutionProvider";
    private static final Map<String, Set<ElementType>> FLOAT_T = Map.of("T", Set.of(ElementType.FLOAT));

    /** Runs for every node this EP is asked about, inside GetCapability. */
    public static volatile Consumer<Node> onSupport = node -> {};

    /** What one kernel's {@link KernelInfo} gave at creation. */
    public record CreatedKernel(String nodeName, String opType, String domain, int sinceVersion, int inputCount,
                                int outputCount, List<ElementType> inputTypes, ElementType outputType, long axis,
                                float alpha, String mode, List<Long> perm, List<Float> offset) {}

    public static final Queue<CreatedKernel> CREATED = new ConcurrentLinkedQueue<>();

    public ProbeHostFactory() {
        super(NAME);
    }

    @Override
    public ExecutionProvider createExecutionProvider(List<HardwareDevice> devices, Map<String, String> sessionOptions) {
        List<KernelDefinition> kernels = List.of(
                new KernelDefinition("Transpose", "", 13, 13, FLOAT_T, Set.of(), Set.of(), ProbeHostFactory::record),
                new KernelDefinition("Pad", "", 13, 13, FLOAT_T, Set.of(), Set.of(), ProbeHostFactory::record),
                new KernelDefinition("Concat", "", 13, 13, FLOAT_T, Set.of(), Set.of(), ProbeHostFactory::record),
                new KernelDefinition("ThresholdedRelu", "", 10, 10, FLOAT_T, Set.of(), Set.of(), ProbeHostFactory::record),
                new KernelDefinition("Scaler", "ai.onnx.ml", 1, 1, FLOAT_T, Set.of(), Set.of(), ProbeHostFactory::record));
        return TestExecutionProvider.withKernels(NAME, node -> {
            onSupport.accept(node);
            return kernels.stream().anyMatch(k -> k.covers(node)) ? NodeSupport.kernel()
                    : NodeSupport.declined(DeclineCode.OP_TYPE, "the probe host EP only records this node");
        }, kernels);
    }

    private static OpKernel record(KernelInfo info) {
        List<ElementType> inputTypes = new java.util.ArrayList<>();
        for (int i = 0; i < info.inputCount(); i++) {
            inputTypes.add(info.inputType(i));
        }
        CREATED.add(new CreatedKernel(info.nodeName(), info.opType(), info.domain(), info.sinceVersion(), info.inputCount(),
                info.outputCount(), List.copyOf(inputTypes), info.outputType(0), info.intAttribute("axis", -99),
                info.floatAttribute("alpha", -99f), info.stringAttribute("mode", "absent"), info.intsAttribute("perm", List.of()),
                info.floatsAttribute("offset", List.of())));
        return context -> {
            throw new UnsupportedOperationException("the probe host EP's kernels only record their creation");
        };
    }
}
