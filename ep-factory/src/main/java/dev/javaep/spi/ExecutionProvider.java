package dev.javaep.spi;

import java.util.List;

/** One EP instance, created per session. */
public interface ExecutionProvider extends AutoCloseable {
    /** The EP name; must equal its factory's name. */
    String name();

    /**
     * Picks the nodes of {@code graph} this EP runs, as groups: each group becomes one fused node
     * that {@link #compile} turns into code. Nodes left out run on another EP (or fail the session when
     * the app disabled CPU fallback). A group must not have a node of another EP on any path between
     * two of its nodes; single-node groups are always valid.
     */
    List<List<Node>> selectNodes(Graph graph);

    /**
     * Compiles one group chosen by {@link #selectNodes}. {@code fusedNode} names the fused node's
     * inputs and outputs in the order {@link KernelContext} presents them.
     */
    CompiledNode compile(Graph subgraph, Node fusedNode);

    /** Whether concurrent {@code Run} calls on one session are safe. */
    default boolean concurrentRunSupported() {
        return true;
    }

    /** Blocks until the device work this EP queued is done ({@code OrtEp::Sync}, used by IoBinding). */
    default void synchronize() {}

    @Override
    default void close() {}
}
