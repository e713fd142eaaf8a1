package dev.javaep.cuda.driver;

import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReferenceArray;

/**
 * The driver library's functions as downcall handles: each bound once, on first use, and cached for
 * the life of the driver. Binding lazily keeps {@link CudaDriver#load()} from failing on a driver that
 * lacks an optional function (cuDeviceGetLuid off Windows, cuMemAllocAsync before CUDA 11.2): the
 * caller of that function gets an {@link UnsupportedOperationException} naming it instead.
 */
final class CudaSymbols {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final CudaFunction[] FUNCTIONS = CudaFunction.values();

    private final CudaLibrary library;
    private final AtomicReferenceArray<MethodHandle> handles = new AtomicReferenceArray<>(FUNCTIONS.length);
    private final AtomicReferenceArray<String> boundNames = new AtomicReferenceArray<>(FUNCTIONS.length);

    CudaSymbols(CudaLibrary library) {
        this.library = library;
    }

    CudaLibrary library() {
        return library;
    }

    /** Whether the library exports this function (under its symbol or a fallback). */
    boolean has(CudaFunction function) {
        return handles.get(function.ordinal()) != null || find(function).isPresent();
    }

    /** The downcall handle; throws {@link UnsupportedOperationException} when the driver lacks the function. */
    MethodHandle handle(CudaFunction function) {
        MethodHandle handle = handles.get(function.ordinal());
        return handle != null ? handle : bind(function);
    }

    /** The exported name actually bound (the fallback where the driver lacks the versioned symbol). */
    String boundName(CudaFunction function) {
        String name = boundNames.get(function.ordinal());
        return name != null ? name : function.symbol();
    }

    private MethodHandle bind(CudaFunction function) {
        Bound bound = find(function).orElseThrow(() -> missing(function));
        boundNames.compareAndSet(function.ordinal(), null, bound.name());
        handles.compareAndSet(function.ordinal(), null, LINKER.downcallHandle(bound.address(), function.descriptor()));
        return handles.get(function.ordinal());
    }

    private record Bound(String name, MemorySegment address) {}

    private Optional<Bound> find(CudaFunction function) {
        Optional<MemorySegment> address = library.lookup().find(function.symbol());
        if (address.isPresent()) {
            return Optional.of(new Bound(function.symbol(), address.get()));
        }
        for (String fallback : function.fallbacks()) {
            address = library.lookup().find(fallback);
            if (address.isPresent()) {
                return Optional.of(new Bound(fallback, address.get()));
            }
        }
        return Optional.empty();
    }

    private UnsupportedOperationException missing(CudaFunction function) {
        String names = function.fallbacks().isEmpty()
                ? function.symbol()
                : function.symbol() + " (nor " + String.join(", ", function.fallbacks()) + ")";
        return new UnsupportedOperationException("javaep: the CUDA driver " + library.description() + " has no " + names
                + "; it is exported by drivers for CUDA " + version(function.since()) + " and newer"
                + (function == CudaFunction.cuDeviceGetLuid ? " on Windows" : "")
                + ": update the NVIDIA driver");
    }

    /** 11020 → "11.2". */
    static String version(int cudaVersion) {
        return cudaVersion / 1000 + "." + (cudaVersion % 1000) / 10;
    }
}
