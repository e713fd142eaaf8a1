package dev.javaep.spi;

/**
 * A per-op kernel created for one node ({@link KernelDefinition}). {@link #compute} may be called from
 * several threads at once when the EP declares concurrent runs supported.
 */
public interface OpKernel extends AutoCloseable {
    void compute(KernelContext context);

    @Override
    default void close() {}

    /** Creates the kernel for one node at session initialization; may throw to refuse the node. */
    @FunctionalInterface
    interface Factory {
        OpKernel create(KernelInfo info);
    }
}
