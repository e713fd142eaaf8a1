package dev.javaep.harness;

import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.Graph;
import dev.javaep.spi.KernelDefinition;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import java.util.List;
import java.util.function.Function;

/**
 * The EP a test factory creates when all that sets it apart is which nodes it takes ({@code answer}) and what runs
 * them: one {@code compiled} kernel for every group it is asked to compile, or per-op {@code kernels}. The test EPs
 * differ in those and nothing else, so they share this one instead of each writing an anonymous class.
 *
 * @param compiled what every compiled group runs; {@code null} for an EP that answers no node
 *                 {@link NodeSupport#compiled()}
 */
public record TestExecutionProvider(String name, Function<Node, NodeSupport> answer, CompiledNode compiled,
                                    List<KernelDefinition> kernels) implements ExecutionProvider {
    /** An EP that runs the groups it claims with {@code compiled}. */
    public static TestExecutionProvider compiling(String name, Function<Node, NodeSupport> answer, CompiledNode compiled) {
        return new TestExecutionProvider(name, answer, compiled, List.of());
    }

    /** An EP that runs the nodes it claims through {@code kernels} (ORT's kernel registry), or claims none. */
    public static TestExecutionProvider withKernels(String name, Function<Node, NodeSupport> answer,
                                                    List<KernelDefinition> kernels) {
        return new TestExecutionProvider(name, answer, null, kernels);
    }

    @Override
    public NodeSupport support(Node node) {
        return answer.apply(node);
    }

    @Override
    public CompiledNode compile(Graph subgraph, Node fusedNode) {
        return compiled == null ? ExecutionProvider.super.compile(subgraph, fusedNode) : compiled;
    }
}
