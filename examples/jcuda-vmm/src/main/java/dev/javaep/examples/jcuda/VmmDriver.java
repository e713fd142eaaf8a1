package dev.javaep.examples.jcuda;

import static dev.javaep.examples.jcuda.JCudaApp.check;
import static java.lang.foreign.MemoryLayout.PathElement.groupElement;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import jcuda.driver.CUmemAccess_flags;
import jcuda.driver.CUmemAllocationGranularity_flags;
import jcuda.driver.CUmemAllocationHandleType;
import jcuda.driver.CUmemAllocationType;
import jcuda.driver.CUmemLocationType;

/**
 * The app's own downcalls for CUDA's virtual memory management functions, into the same
 * {@code libcuda.so.1} JCuda loaded. JCuda 12.6.0 declares them, but its JNI code fills the driver
 * structs wrongly: {@code CUmemAllocationProp} is built on the stack without zeroing
 * {@code allocFlags.reserved}, and its {@code allocFlags} are read from the property object instead of
 * the flags object, so JCuda's cuMemCreate answers CUDA_ERROR_INVALID_VALUE whatever the properties
 * (seen on an H200, driver 580) where this one succeeds; its {@code CUmemAccessDesc} location is read
 * from the descriptor instead of the location object. Every function that takes an allocation handle
 * is here too, since JCuda cannot wrap a handle it did not create.
 *
 * <p>Only for calls that take no JCuda object; results are checked like JCuda's ({@link JCudaApp#check}).
 */
final class VmmDriver {
    /** {@code CUmemLocation} (8 bytes). */
    private static final StructLayout LOCATION = MemoryLayout.structLayout(
            JAVA_INT.withName("type"), JAVA_INT.withName("id"));

    /** {@code CUmemAllocationProp} (CUDA 12; 32 bytes). */
    private static final StructLayout ALLOCATION_PROP = MemoryLayout.structLayout(
            JAVA_INT.withName("type"),
            JAVA_INT.withName("requestedHandleTypes"),
            LOCATION.withName("location"),
            ADDRESS.withName("win32HandleMetaData"),
            MemoryLayout.structLayout(
                    JAVA_BYTE.withName("compressionType"),
                    JAVA_BYTE.withName("gpuDirectRDMACapable"),
                    JAVA_SHORT.withName("usage"),
                    MemoryLayout.sequenceLayout(4, JAVA_BYTE).withName("reserved")).withName("allocFlags"));

    /** {@code CUmemAccessDesc} (12 bytes). */
    private static final StructLayout ACCESS_DESC = MemoryLayout.structLayout(
            LOCATION.withName("location"), JAVA_INT.withName("flags"));

    private static final Linker LINKER = Linker.nativeLinker();
    private static final SymbolLookup LIBCUDA = SymbolLookup.libraryLookup("libcuda.so.1", Arena.global());

    private static final MethodHandle GET_ALLOCATION_GRANULARITY = bind("cuMemGetAllocationGranularity",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, ADDRESS, JAVA_INT));
    private static final MethodHandle CREATE = bind("cuMemCreate",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, ADDRESS, JAVA_LONG));
    private static final MethodHandle ADDRESS_RESERVE = bind("cuMemAddressReserve",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle MAP = bind("cuMemMap",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle SET_ACCESS = bind("cuMemSetAccess",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, ADDRESS, JAVA_LONG));
    private static final MethodHandle EXPORT_TO_SHAREABLE_HANDLE = bind("cuMemExportToShareableHandle",
            FunctionDescriptor.of(JAVA_INT, ADDRESS, JAVA_LONG, JAVA_INT, JAVA_LONG));
    private static final MethodHandle UNMAP = bind("cuMemUnmap", FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle ADDRESS_FREE = bind("cuMemAddressFree",
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG));
    private static final MethodHandle RELEASE = bind("cuMemRelease", FunctionDescriptor.of(JAVA_INT, JAVA_LONG));

    private VmmDriver() {}

    private static MethodHandle bind(String name, FunctionDescriptor descriptor) {
        MemorySegment function = LIBCUDA.find(name).orElseThrow(() -> new JCudaUnavailableException(
                "javaep: libcuda.so.1 has no " + name + ": the NVIDIA driver is older than CUDA 10.2"));
        return LINKER.downcallHandle(function, descriptor);
    }

    /** Pinned device memory on {@code ordinal}, exportable as a POSIX fd; every other field zero, as the driver requires. */
    private static MemorySegment allocationProperties(Arena arena, int ordinal) {
        MemorySegment prop = arena.allocate(ALLOCATION_PROP); // zero-filled
        prop.set(JAVA_INT, ALLOCATION_PROP.byteOffset(groupElement("type")), CUmemAllocationType.CU_MEM_ALLOCATION_TYPE_PINNED);
        prop.set(JAVA_INT, ALLOCATION_PROP.byteOffset(groupElement("requestedHandleTypes")),
                CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
        prop.set(JAVA_INT, ALLOCATION_PROP.byteOffset(groupElement("location"), groupElement("type")),
                CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE);
        prop.set(JAVA_INT, ALLOCATION_PROP.byteOffset(groupElement("location"), groupElement("id")), ordinal);
        return prop;
    }

    /** {@code cuMemGetAllocationGranularity(MINIMUM)} for {@link #create}'s allocations. */
    static long granularity(int ordinal) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            MemorySegment prop = allocationProperties(arena, ordinal);
            call("cuMemGetAllocationGranularity", "", () -> (int) GET_ALLOCATION_GRANULARITY.invokeExact(out, prop,
                    CUmemAllocationGranularity_flags.CU_MEM_ALLOC_GRANULARITY_MINIMUM));
            return out.get(JAVA_LONG, 0);
        }
    }

    /** {@code cuMemCreate}: the allocation handle. */
    static long create(long size, int ordinal) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            MemorySegment prop = allocationProperties(arena, ordinal);
            call("cuMemCreate", size + " bytes on device " + ordinal, () -> (int) CREATE.invokeExact(out, size, prop, 0L));
            return out.get(JAVA_LONG, 0);
        }
    }

    /** {@code cuMemAddressReserve} anywhere, default alignment: the range's start. */
    static long reserve(long size) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            call("cuMemAddressReserve", size + " bytes", () -> (int) ADDRESS_RESERVE.invokeExact(out, size, 0L, 0L, 0L));
            return out.get(JAVA_LONG, 0);
        }
    }

    static void map(long address, long size, long allocation) {
        call("cuMemMap", "", () -> (int) MAP.invokeExact(address, size, 0L, allocation, 0L));
    }

    /** {@code cuMemSetAccess}: read-write for device {@code ordinal}, the only access a fresh mapping lacks. */
    static void setReadWrite(long address, long size, int ordinal) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment access = arena.allocate(ACCESS_DESC);
            access.set(JAVA_INT, ACCESS_DESC.byteOffset(groupElement("location"), groupElement("type")),
                    CUmemLocationType.CU_MEM_LOCATION_TYPE_DEVICE);
            access.set(JAVA_INT, ACCESS_DESC.byteOffset(groupElement("location"), groupElement("id")), ordinal);
            access.set(JAVA_INT, ACCESS_DESC.byteOffset(groupElement("flags")),
                    CUmemAccess_flags.CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
            call("cuMemSetAccess", "", () -> (int) SET_ACCESS.invokeExact(address, size, access, 1L));
        }
    }

    /** {@code cuMemExportToShareableHandle(POSIX_FILE_DESCRIPTOR)}: a new fd the caller owns. */
    static int exportFd(long allocation) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            out.set(JAVA_INT, 0, -1);
            call("cuMemExportToShareableHandle", "", () -> (int) EXPORT_TO_SHAREABLE_HANDLE.invokeExact(out, allocation,
                    CUmemAllocationHandleType.CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0L));
            return out.get(JAVA_INT, 0);
        }
    }

    static void unmap(long address, long size) {
        call("cuMemUnmap", "", () -> (int) UNMAP.invokeExact(address, size));
    }

    static void addressFree(long address, long size) {
        call("cuMemAddressFree", "", () -> (int) ADDRESS_FREE.invokeExact(address, size));
    }

    static void release(long allocation) {
        call("cuMemRelease", "", () -> (int) RELEASE.invokeExact(allocation));
    }

    /** One downcall through a handle above; returns its {@code CUresult}. */
    @FunctionalInterface
    private interface Downcall {
        int invoke() throws Throwable;
    }

    /**
     * Makes {@code downcall} and checks its result like JCuda's ({@link JCudaApp#check}); what a handle throws besides
     * (nothing, for these signatures) comes back unchecked.
     */
    private static void call(String function, String context, Downcall downcall) {
        int result;
        try {
            result = downcall.invoke();
        } catch (RuntimeException | Error e) {
            throw e;
        } catch (Throwable t) {
            throw new IllegalStateException(t);
        }
        check(result, function, context);
    }
}
