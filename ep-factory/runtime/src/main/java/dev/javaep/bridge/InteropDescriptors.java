package dev.javaep.bridge;

import static dev.javaep.ort.OrtInteropLayouts.FIRST_VERSION;
import static dev.javaep.ort.OrtInteropLayouts.MEMORY_DESCRIPTOR;
import static dev.javaep.ort.OrtInteropLayouts.NEWEST_KNOWN_VERSION;
import static dev.javaep.ort.OrtInteropLayouts.SEMAPHORE_DESCRIPTOR;
import static dev.javaep.ort.OrtInteropLayouts.TENSOR_DESCRIPTOR;
import static dev.javaep.ort.OrtInteropLayouts.offset;

import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExternalMemoryDescriptor;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalSemaphoreDescriptor;
import dev.javaep.spi.ExternalSemaphoreType;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.function.IntFunction;
import java.util.function.Predicate;

/**
 * Reads and checks the descriptors apps pass to {@code OrtInteropApi}. ORT core checks none of their
 * contents (versions, handles, sizes, shapes), so this is the one place that does, for every Java
 * importer alike: a bad descriptor is an {@link IllegalArgumentException} (ORT_INVALID_ARGUMENT)
 * whose message names the field and what to do; a type the importer cannot take is an
 * {@link UnsupportedOperationException} (ORT_NOT_IMPLEMENTED).
 */
final class InteropDescriptors {
    private InteropDescriptors() {}

    /** Ranks above this are refused as an uninitialised descriptor rather than read (ONNX tensors stay far below). */
    static final long MAX_RANK = 64;

    /** A checked tensor view: {@code byteSize} bytes at {@code offsetBytes} of the imported range. */
    record TensorView(ElementType elementType, long[] shape, long offsetBytes, long byteSize) {}

    static ExternalMemoryDescriptor memory(MemorySegment descriptor, Importable<ExternalMemoryType> importable) {
        MemorySegment d = versionedStruct(descriptor, MEMORY_DESCRIPTOR);
        ExternalMemoryType type = type(d, MEMORY_DESCRIPTOR, "handle_type", "OrtExternalMemoryHandleType",
                ExternalMemoryType::fromOrt, ExternalMemoryType.values());
        importable.require(type, "memory");
        long handle = nativeHandle(d, MEMORY_DESCRIPTOR, type.handleKind());
        long size = d.get(ValueLayout.JAVA_LONG, offset(MEMORY_DESCRIPTOR, "size_bytes"));
        long offsetBytes = d.get(ValueLayout.JAVA_LONG, offset(MEMORY_DESCRIPTOR, "offset_bytes"));
        if (size == 0) {
            throw new IllegalArgumentException("javaep: OrtExternalMemoryDescriptor.size_bytes is 0; set it to the size of"
                    + " the whole external allocation (for Vulkan: VkMemoryRequirements.size as allocated)");
        }
        if (size < 0 || offsetBytes < 0) { // size_t values past 2^63: no allocation is that large
            throw new IllegalArgumentException("javaep: OrtExternalMemoryDescriptor size_bytes " + Long.toUnsignedString(size)
                    + " / offset_bytes " + Long.toUnsignedString(offsetBytes) + " is out of range (a negative value cast to size_t?)");
        }
        if (Long.compareUnsigned(offsetBytes, size) >= 0) {
            throw new IllegalArgumentException("javaep: OrtExternalMemoryDescriptor.offset_bytes " + offsetBytes
                    + " is not below size_bytes " + size + ": nothing of the allocation would be imported");
        }
        return new ExternalMemoryDescriptor(type, handle, size, offsetBytes);
    }

    static ExternalSemaphoreDescriptor semaphore(MemorySegment descriptor, Importable<ExternalSemaphoreType> importable) {
        MemorySegment d = versionedStruct(descriptor, SEMAPHORE_DESCRIPTOR);
        ExternalSemaphoreType type = type(d, SEMAPHORE_DESCRIPTOR, "type", "OrtExternalSemaphoreType",
                ExternalSemaphoreType::fromOrt, ExternalSemaphoreType.values());
        importable.require(type, "semaphores");
        return new ExternalSemaphoreDescriptor(type, nativeHandle(d, SEMAPHORE_DESCRIPTOR, type.handleKind()));
    }

    /** Checks a tensor descriptor against the {@code mappedBytes} of the memory it views. */
    static TensorView tensor(MemorySegment descriptor, long mappedBytes) {
        MemorySegment d = versionedStruct(descriptor, TENSOR_DESCRIPTOR);
        int rawType = d.get(ValueLayout.JAVA_INT, offset(TENSOR_DESCRIPTOR, "element_type"));
        ElementType type = elementType(rawType);
        long rank = d.get(ValueLayout.JAVA_LONG, offset(TENSOR_DESCRIPTOR, "rank"));
        MemorySegment shapePointer = d.get(ValueLayout.ADDRESS, offset(TENSOR_DESCRIPTOR, "shape"));
        if (rank < 0 || rank > MAX_RANK) {
            throw new IllegalArgumentException("javaep: OrtExternalTensorDescriptor.rank " + Long.toUnsignedString(rank)
                    + " is out of range (0.." + MAX_RANK + "); is the descriptor initialised?");
        }
        if (rank > 0 && shapePointer.equals(MemorySegment.NULL)) {
            throw new IllegalArgumentException("javaep: OrtExternalTensorDescriptor.shape is NULL but rank is " + rank
                    + "; point it at rank int64_t dimensions");
        }
        long[] shape = rank == 0 ? new long[0]
                : shapePointer.reinterpret(rank * Long.BYTES).toArray(ValueLayout.JAVA_LONG);
        long elements = 1;
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] < 0) {
                throw new IllegalArgumentException("javaep: OrtExternalTensorDescriptor.shape[" + i + "] is " + shape[i]
                        + ": dimensions of a tensor over external memory must be concrete (>= 0)");
            }
            elements = multiplyOrRefuse(elements, shape[i], shape);
        }
        long byteSize = multiplyOrRefuse(elements, type.byteSize(), shape);
        long tensorOffset = d.get(ValueLayout.JAVA_LONG, offset(TENSOR_DESCRIPTOR, "offset_bytes"));
        if (tensorOffset < 0 || Long.compareUnsigned(tensorOffset, mappedBytes) > 0) {
            throw new IllegalArgumentException("javaep: OrtExternalTensorDescriptor.offset_bytes "
                    + Long.toUnsignedString(tensorOffset) + " is past the " + mappedBytes
                    + " imported bytes (size_bytes - offset_bytes of the memory descriptor)");
        }
        if (byteSize > mappedBytes - tensorOffset) {
            throw new IllegalArgumentException("javaep: a " + type + " tensor of shape " + Arrays.toString(shape) + " needs "
                    + byteSize + " bytes at offset " + tensorOffset + ", but only " + (mappedBytes - tensorOffset)
                    + " of the " + mappedBytes + " imported bytes are left there");
        }
        if (tensorOffset % type.byteSize() != 0) {
            throw new IllegalArgumentException("javaep: OrtExternalTensorDescriptor.offset_bytes " + tensorOffset
                    + " is not a multiple of the " + type + " element size " + type.byteSize()
                    + "; kernels need aligned elements");
        }
        return new TensorView(type, shape, tensorOffset, byteSize);
    }

    /**
     * Descriptor versions: 24 introduced the structs and no API version since has changed them, so any
     * version from 24 to the newest javaep knows reads the same. A newer one may have grown fields
     * javaep would ignore, and 0 is a caller that forgot to set it: both are refused.
     */
    static void checkVersion(String struct, int version) {
        if (version < FIRST_VERSION) {
            throw new IllegalArgumentException("javaep: " + struct + ".version is " + version + "; set it to ORT_API_VERSION"
                    + " (the struct exists since API " + FIRST_VERSION + ")");
        }
        if (version > NEWEST_KNOWN_VERSION) {
            throw new IllegalArgumentException("javaep: " + struct + ".version " + version + " is newer than javaep knows"
                    + " (" + FIRST_VERSION + "-" + NEWEST_KNOWN_VERSION + "): it may carry fields javaep would ignore;"
                    + " update javaep, or fill the struct as version " + NEWEST_KNOWN_VERSION);
        }
    }

    /** The descriptor at {@code pointer}, sized as {@code layout} (named after the C struct), with a version javaep reads. */
    private static MemorySegment versionedStruct(MemorySegment pointer, StructLayout layout) {
        String struct = layout.name().orElseThrow();
        if (pointer.equals(MemorySegment.NULL)) {
            throw new IllegalArgumentException("javaep: the " + struct + " pointer is NULL");
        }
        MemorySegment d = pointer.reinterpret(layout.byteSize());
        checkVersion(struct, d.get(ValueLayout.JAVA_INT, offset(layout, "version")));
        return d;
    }

    /** The descriptor's type {@code field}; a value javaep does not define is refused, with the ones it does. */
    private static <T extends Enum<T>> T type(MemorySegment d, StructLayout layout, String field, String cType,
                                              IntFunction<Optional<T>> fromOrt, T[] known) {
        int raw = d.get(ValueLayout.JAVA_INT, offset(layout, field));
        return fromOrt.apply(raw).orElseThrow(() -> new IllegalArgumentException("javaep: " + layout.name().orElseThrow()
                + "." + field + " " + raw + " is not an " + cType + " (known: " + Arrays.toString(known) + ")"));
    }

    /** The descriptor's {@code native_handle}, checked as a handle of {@code kind}. */
    private static long nativeHandle(MemorySegment d, StructLayout layout, ExternalMemoryType.NativeHandleKind kind) {
        long handle = d.get(ValueLayout.ADDRESS, offset(layout, "native_handle")).address();
        checkHandle(layout.name().orElseThrow(), kind, handle);
        return handle;
    }

    private static void checkHandle(String struct, ExternalMemoryType.NativeHandleKind kind, long handle) {
        switch (kind) {
            case FILE_DESCRIPTOR -> {
                if (handle <= 0 || handle > Integer.MAX_VALUE) {
                    throw new IllegalArgumentException("javaep: " + struct + ".native_handle " + handle + " is not a file"
                            + " descriptor this importer can take; pass the exported fd as (void*)(intptr_t)fd");
                }
            }
            case WIN32_HANDLE, HOST_POINTER -> {
                if (handle == 0) {
                    throw new IllegalArgumentException("javaep: " + struct + ".native_handle is NULL");
                }
            }
        }
    }

    private static ElementType elementType(int raw) {
        ElementType type;
        try {
            type = ElementType.fromOnnx(raw);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("javaep: OrtExternalTensorDescriptor.element_type " + raw
                    + " is not an ONNXTensorElementDataType");
        }
        if (type.byteSize() == 0) {
            throw new IllegalArgumentException("javaep: OrtExternalTensorDescriptor.element_type " + type
                    + " cannot view external memory: only fixed-size types of whole bytes can");
        }
        return type;
    }

    private static long multiplyOrRefuse(long a, long b, long[] shape) {
        try {
            return Math.multiplyExact(a, b);
        } catch (ArithmeticException e) {
            throw new IllegalArgumentException("javaep: the byte size of a tensor of shape " + Arrays.toString(shape)
                    + " overflows 64 bits");
        }
    }

    /** What one importer can import: the check that turns "cannot" into ORT_NOT_IMPLEMENTED with the list of what it can. */
    record Importable<T extends Enum<T>>(String epName, Predicate<T> can, List<T> all) {
        void require(T type, String what) {
            if (!can.test(type)) {
                throw new UnsupportedOperationException("javaep: " + epName + " cannot import " + type + " " + what
                        + " on this system and device; it imports " + all.stream().filter(can).toList()
                        + " (ask CanImport" + (what.equals("memory") ? "Memory" : "Semaphore") + " first)");
            }
        }
    }
}
