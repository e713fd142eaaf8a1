package com.example.minimalep;

import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.KernelDefinition;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The EP of one session: float {@code Add} and {@code Relu}, each through a per-op kernel that ORT's kernel
 * registry holds. ORT matches a node to a kernel by op, opset version and element types, plans the memory
 * and calls the kernel once per node per Run; a node no kernel matches (say an int32 Add) is declined by
 * javaep and, unless the session disables CPU fallback, runs on ORT's CPU EP.
 *
 * <p>To add an op: write an {@link dev.javaep.spi.OpKernel}, list it in {@link #kernels()} and in
 * {@link #OPS}.
 */
public final class MinimalExecutionProvider implements ExecutionProvider {
    /** The ops this EP has kernels for. */
    static final Set<String> OPS = Set.of("Add", "Relu");

    /** Type constraint "T" of both ops' schemas, limited to float. */
    private static final Map<String, Set<ElementType>> FLOAT = Map.of("T", Set.of(ElementType.FLOAT));

    @Override
    public String name() {
        return MinimalExecutionProviderFactory.NAME;
    }

    /** Called once per node of the model: take it through a kernel, or say why not. */
    @Override
    public NodeSupport support(Node node) {
        if (node.isOnnxDomain() && OPS.contains(node.opType())) {
            return NodeSupport.kernel(); // opset and element types are checked by ORT against kernels()
        }
        return NodeSupport.declined(DeclineCode.OP_TYPE, "MinimalExecutionProvider runs only " + OPS);
    }

    /**
     * The kernels, with the op schema versions whose meaning they implement (Add 7 added broadcasting; 13
     * and 14 only added types; Relu 6, 13 and 14 likewise).
     */
    @Override
    public List<KernelDefinition> kernels() {
        return List.of(
                KernelDefinition.of("Add", 7, 14, FLOAT, info -> new AddKernel()),
                KernelDefinition.of("Relu", 6, 14, FLOAT, info -> new ReluKernel()));
    }
}
