package dev.javaep.cuda;

import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.Graph;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.Node;

/**
 * JavaCudaExecutionProvider for one session on one CUDA device. Each supported node becomes one
 * compiled node whose kernels are queued on the stream ORT hands the compute call; nothing waits on
 * the host inside a Run. Concurrent Runs are safe: compiled nodes hold no per-Run state and every
 * launch uses the calling Run's stream.
 */
final class JavaCudaExecutionProvider implements ExecutionProvider {
    private final CudaDevice device;

    JavaCudaExecutionProvider(CudaDevice device) {
        this.device = device;
        device.makeCurrent();
        device.kernels(); // JIT the module at session creation, not in the first Run
    }

    @Override
    public String name() {
        return JavaCudaExecutionProviderFactory.NAME;
    }

    @Override
    public NodeSupport support(Node node) {
        CudaOps.Support support = CudaOps.support(node);
        return support.supported() ? NodeSupport.compiled() : NodeSupport.declined(support.code(), support.reason());
    }

    @Override
    public CompiledNode compile(Graph subgraph, Node fusedNode) {
        if (subgraph.nodes().size() != 1) {
            throw new IllegalArgumentException("javaep: " + name() + " compiles single-node groups, got " + subgraph.nodes().size());
        }
        return CudaOps.compile(subgraph.nodes().getFirst(), device);
    }

    @Override
    public void synchronize() {
        device.synchronize();
    }
}
