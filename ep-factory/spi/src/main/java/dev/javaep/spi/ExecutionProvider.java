package dev.javaep.spi;

import java.util.List;
import java.util.Optional;

/**
 * One EP instance, created per session.
 *
 * <p>Two ways to run nodes, chosen per node by {@link #support}:
 * <ul>
 *   <li><b>compiled groups</b> ({@link NodeSupport#compiled()}): javaep partitions every such node into
 *       the largest groups ORT can fuse (never a group that reaches itself through another EP's node)
 *       and calls {@link #compile} once per group; ORT calls the result once per group per Run and
 *       the group's intermediates are the EP's own;</li>
 *   <li><b>per-op kernels</b> ({@link NodeSupport#kernel()}): the node runs through a kernel from
 *       {@link #kernels()}; ORT plans its memory, inserts CPU↔device copies by the memory types the
 *       kernel declares, and runs control flow (If/Loop/Scan) itself.</li>
 * </ul>
 */
public interface ExecutionProvider extends AutoCloseable {
    /** The EP name; must equal its factory's name. */
    String name();

    /**
     * Whether and how this EP runs {@code node}. Called once per node in {@code GetCapability}; an
     * exception here is contained to the node (it is declined with {@link DeclineCode#INTERNAL_ERROR})
     * and never fails the session, but an EP should answer {@link NodeSupport#declined} instead.
     */
    NodeSupport support(Node node);

    /**
     * Compiles one group of nodes this EP answered {@link NodeSupport#compiled()} for. {@code fusedNode}
     * names the fused node's inputs and outputs in the order {@link KernelContext} presents them;
     * {@code subgraph} lists the group's nodes in topological order.
     */
    default CompiledNode compile(Graph subgraph, Node fusedNode) {
        throw new UnsupportedOperationException(name() + " compiles no groups; it runs nodes through per-op kernels");
    }

    /**
     * The per-op kernels this EP registers with ORT (ORT ≥ 1.24), asked once per EP. Besides the ops
     * it answers {@link NodeSupport#kernel()} for, a device EP registers the copy kernels its
     * boundaries need ({@code MemcpyFromHost}, {@code MemcpyToHost}): ORT inserts those nodes itself.
     */
    default List<KernelDefinition> kernels() {
        return List.of();
    }

    /** Whether concurrent {@code Run} calls on one session are safe. */
    default boolean concurrentRunSupported() {
        return true;
    }

    /** Blocks until the device work this EP queued is done ({@code OrtEp::Sync}, used by IoBinding). */
    default void synchronize() {}

    /**
     * This EP's part in ONNX Runtime's graph capture (ORT ≥ 1.26), asked once when the EP is created; empty (the
     * default) when it takes none, or the session did not ask for it.
     */
    default Optional<GraphCapture> graphCapture() {
        return Optional.empty();
    }

    @Override
    default void close() {}
}
