package dev.javaep.cuda;

import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.cuda.kernel.CudaSubgraphProgram;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.GraphCapture;
import dev.javaep.spi.Graph;
import dev.javaep.spi.KernelDefinition;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.Node;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * JavaCudaExecutionProvider for one session on one CUDA device. Every group of supported nodes ORT fuses
 * becomes one compiled node ({@link CudaSubgraphProgram}) whose kernels are queued on the stream ORT hands
 * the compute call; nothing waits on the host inside a Run. Concurrent Runs are safe: compiled nodes hold
 * no per-Run state and every launch uses the calling Run's stream. The copy kernels ORT inserts at
 * CPU↔JavaCuda edges are this EP's own ({@link #kernels()}).
 *
 * <p>With the EP option {@value OrtGraphCapture#OPTION}=1 the EP takes part in ORT's own graph capture
 * ({@link OrtGraphCapture}): ORT replays a recorded Run without its executor, one Run at a time.
 */
final class JavaCudaExecutionProvider implements ExecutionProvider {
    /**
     * Diagnostic switch, read per session: {@code -Djavaep.cuda.copyKernels=false} leaves the copies at
     * CPU↔JavaCuda edges to ORT's CPU fallback kernel, whose output ORT's planner puts in host memory
     * (onnxruntime PR #27272). That reproduces the host pointer issue 11 found; the bridge's input check then
     * stops the Run with a status. Never needed in production.
     */
    static final String COPY_KERNELS_PROPERTY = "javaep.cuda.copyKernels";

    private final CudaDevice device;
    private final List<KernelDefinition> copyKernels;
    /** ORT's graph capture of this session's Runs; null unless the session's options ask for it. */
    private final OrtGraphCapture graphCapture;

    JavaCudaExecutionProvider(CudaDevice device) {
        this(device, Map.of());
    }

    JavaCudaExecutionProvider(CudaDevice device, Map<String, String> sessionOptions) {
        this.device = device;
        boolean capture = OrtGraphCapture.enabledBy(sessionOptions); // a bad value is refused before anything is made
        this.copyKernels = Boolean.parseBoolean(System.getProperty(COPY_KERNELS_PROPERTY, "true"))
                ? CudaCopyKernels.definitions(device) : List.of();
        device.makeCurrent();
        device.kernels(); // JIT the module at session creation, not in the first Run
        // last: a failure above must not strand the capture's stream in an EP nobody will close
        this.graphCapture = capture ? OrtGraphCapture.on(device) : null;
    }

    @Override
    public String name() {
        return JavaCudaExecutionProviderFactory.NAME;
    }

    @Override
    public NodeSupport support(Node node) {
        return CudaOps.support(node);
    }

    /**
     * Every group, single nodes included, becomes a {@link CudaSubgraphProgram}: for a group without
     * intermediates it adds only the wiring of inputs and outputs to calling the node's kernel directly.
     */
    @Override
    public CompiledNode compile(Graph subgraph, Node fusedNode) {
        return CudaSubgraphProgram.compile(subgraph, fusedNode, device);
    }

    /** The copy kernels ORT inserts at CPU↔JavaCuda edges (see {@link CudaCopyKernels}). */
    @Override
    public List<KernelDefinition> kernels() {
        return copyKernels;
    }

    @Override
    public void synchronize() {
        device.synchronize();
    }

    @Override
    public Optional<GraphCapture> graphCapture() {
        return Optional.ofNullable(graphCapture);
    }

    /** False while ORT captures: a recording is the calling thread's Run, and a replay reuses fixed addresses. */
    @Override
    public boolean concurrentRunSupported() {
        return graphCapture == null;
    }

    @Override
    public void close() {
        if (graphCapture != null) {
            graphCapture.close();
        }
    }
}
