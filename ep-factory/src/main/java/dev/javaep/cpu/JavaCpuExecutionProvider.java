package dev.javaep.cpu;

import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.Graph;
import dev.javaep.spi.Node;
import java.util.ArrayList;
import java.util.List;

/** One session's {@code JavaCpuExecutionProvider}: claims the nodes its Java kernels run. */
final class JavaCpuExecutionProvider implements ExecutionProvider {

    @Override
    public String name() {
        return JavaCpuExecutionProviderFactory.NAME;
    }

    /**
     * Claims every node a kernel exists for, one node per group: a single-node group is always a valid
     * partition, whatever the other EPs take.
     */
    @Override
    public List<List<Node>> selectNodes(Graph graph) {
        List<List<Node>> groups = new ArrayList<>();
        for (Node node : graph.nodes()) {
            if (CpuKernels.forNode(node).isPresent()) {
                groups.add(List.of(node));
            }
        }
        return groups;
    }

    @Override
    public CompiledNode compile(Graph subgraph, Node fusedNode) {
        return CpuSubgraphProgram.compile(subgraph, fusedNode);
    }
}
