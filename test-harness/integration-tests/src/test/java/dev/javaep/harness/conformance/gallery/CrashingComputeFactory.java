package dev.javaep.harness.conformance.gallery;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;

/**
 * Gallery: Compute writes through a NULL pointer in native code ({@code memset(NULL, 0, 8)} through FFM), as a
 * buggy native kernel would: SIGSEGV, the JVM's fatal-error handler, the host process gone. The kit must report
 * {@code crash} for the check that was running Compute ({@code correctness.node-tests}) and go on.
 */
@SuppressWarnings("restricted") // the native call is the point: a kernel that crashes in native code
public final class CrashingComputeFactory extends GalleryAddFactory {
    private static final MethodHandle MEMSET = Linker.nativeLinker().downcallHandle(
            Linker.nativeLinker().defaultLookup().findOrThrow("memset"),
            FunctionDescriptor.of(ValueLayout.ADDRESS, ValueLayout.ADDRESS, ValueLayout.JAVA_INT, ValueLayout.JAVA_LONG));

    @Override
    void compute(dev.javaep.spi.KernelContext context) {
        try {
            MemorySegment ignored = (MemorySegment) MEMSET.invokeExact(MemorySegment.NULL, 0, 8L);
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
    }
}
