package dev.javaep.cpu;

import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.Graph;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.Node;

/** One session's {@code JavaCpuExecutionProvider}: claims the nodes its Java kernels run. */
final class JavaCpuExecutionProvider implements ExecutionProvider {

    @Override
    public String name() {
        return JavaCpuExecutionProviderFactory.NAME;
    }

    /** Runs in a compiled group every node a Java kernel exists for. */
    @Override
    public NodeSupport support(Node node) {
        return CpuKernels.support(node);
    }

    @Override
    public CompiledNode compile(Graph subgraph, Node fusedNode) {
        return CpuSubgraphProgram.compile(subgraph, fusedNode);
    }
}
