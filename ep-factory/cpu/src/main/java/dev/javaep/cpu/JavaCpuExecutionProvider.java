package dev.javaep.cpu;

import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.KernelThreads;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.Graph;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.Node;

/**
 * One session's {@code JavaCpuExecutionProvider}: claims the nodes its Java kernels run, and runs them with the shared
 * kernel thread pool of its thread count, held from creation until ORT releases the EP.
 */
final class JavaCpuExecutionProvider implements ExecutionProvider {
    private final KernelThreads threads;

    JavaCpuExecutionProvider(int threads) {
        this.threads = KernelThreads.acquire(threads);
    }

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
        return CpuSubgraphProgram.compile(subgraph, fusedNode, threads);
    }

    @Override
    public void close() {
        KernelThreads.release(threads);
    }
}
