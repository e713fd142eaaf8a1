package dev.javaep.cpu.kernel;

/**
 * Whether JavaCpu's kernels may use the Vector API ({@link FloatVectors}). Kept apart from {@link FloatVectors} on
 * purpose: reading a flag of that class would initialise it, and its initialiser needs {@code jdk.incubator.vector},
 * which a JVM resolves only when started with {@code --add-modules jdk.incubator.vector} (a host's own JVM, a child
 * JVM started without the flag): there the kernels must run their scalar loops, not fail with NoClassDefFoundError.
 */
public final class VectorSupport {
    /** This JVM has resolved {@code jdk.incubator.vector} and {@code -Djavaep.cpu.scalar=true} is not set. */
    public static final boolean AVAILABLE = ModuleLayer.boot().findModule("jdk.incubator.vector").isPresent()
            && !Boolean.getBoolean("javaep.cpu.scalar");

    private VectorSupport() {}
}
