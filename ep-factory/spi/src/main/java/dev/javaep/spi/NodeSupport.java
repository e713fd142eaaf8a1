package dev.javaep.spi;

/**
 * An EP's answer for one node in {@code GetCapability}: run it in a compiled group, run it through the
 * EP's per-op kernel (its {@link KernelDefinition}s), or leave it to other EPs, with a reason.
 */
public sealed interface NodeSupport {
    /**
     * The node joins a compiled group: javaep partitions all such nodes into the largest groups ORT can
     * fuse and hands each to {@link ExecutionProvider#compile} once.
     */
    record Compiled() implements NodeSupport {}

    /**
     * The node runs through the EP's registered per-op kernel ({@link ExecutionProvider#kernels()}):
     * ORT plans its memory, inserts copies by the kernel's declared memory types, and calls the kernel.
     */
    record Kernel() implements NodeSupport {}

    /** The node is left to other EPs; {@code reason} says what a user would fix or expect. */
    record Declined(DeclineCode code, String reason) implements NodeSupport {
        public Declined {
            if (code == null || reason == null) {
                throw new IllegalArgumentException("a decline needs a code and a reason");
            }
        }
    }

    NodeSupport COMPILED = new Compiled();
    NodeSupport KERNEL = new Kernel();

    static NodeSupport compiled() {
        return COMPILED;
    }

    static NodeSupport kernel() {
        return KERNEL;
    }

    static NodeSupport declined(DeclineCode code, String reason) {
        return new Declined(code, reason);
    }

    default boolean isSupported() {
        return !(this instanceof Declined);
    }
}
