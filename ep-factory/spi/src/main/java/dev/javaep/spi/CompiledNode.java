package dev.javaep.spi;

/**
 * The runnable form of one fused group of nodes. {@link #compute} may be called from several
 * threads at once when the EP declares concurrent runs supported.
 */
public interface CompiledNode extends AutoCloseable {
    void compute(KernelContext context);

    @Override
    default void close() {}
}
