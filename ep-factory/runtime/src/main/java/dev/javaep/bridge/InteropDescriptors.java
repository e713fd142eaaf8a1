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
 *
 * <p>What no importer could take ({@link #memoryProblem}, {@link #semaphoreProblem}) is public: the validation layer,
 * in front of another vendor's importer, reports the same findings in the same words.
 */
public final class InteropDescriptors {
    private InteropDescriptors() {}

    /** Ranks above this are refused as an uninitialised descriptor rather than read (ONNX tensors stay far below). */
    static final long MAX_RANK = 64;

    private static final Kind<ExternalMemoryType> MEMORY = new Kind<>(MEMORY_DESCRIPTOR, "handle_type",
            "OrtExternalMemoryHandleType", ExternalMemoryType::fromOrt, List.of(ExternalMemoryType.values()));
    private static final Kind<ExternalSemaphoreType> SEMAPHORE = new Kind<>(SEMAPHORE_DESCRIPTOR, "type",
            "OrtExternalSemaphoreType", ExternalSemaphoreType::fromOrt, List.of(ExternalSemaphoreType.values()));
    private static final long SIZE_BYTES = offset(MEMORY_DESCRIPTOR, "size_bytes");
    private static final long OFFSET_BYTES = offset(MEMORY_DESCRIPTOR, "offset_bytes");

    /** A checked tensor view: {@code byteSize} bytes at {@code offsetBytes} of the imported range. */
    record TensorView(ElementType elementType, long[] shape, long offsetBytes, long byteSize) {}

    /** The memory descriptor's checked fields; the type is one {@code importable} takes. */
    static ExternalMemoryDescriptor memory(MemorySegment descriptor, Importable<ExternalMemoryType> importable) {
        MemorySegment d = refuseIf(MEMORY.problem(descriptor), descriptor, MEMORY_DESCRIPTOR);
        ExternalMemoryType type = MEMORY.type(d);
        importable.require(type, "memory");
        long handle = nativeHandle(d, MEMORY_DESCRIPTOR, type.handleKind());
        refuseIf(rangeProblem(d), d, MEMORY_DESCRIPTOR);
        return new ExternalMemoryDescriptor(type, handle, d.get(ValueLayout.JAVA_LONG, SIZE_BYTES),
                d.get(ValueLayout.JAVA_LONG, OFFSET_BYTES));
    }

    /** The semaphore descriptor's checked fields; the type is one {@code importable} takes. */
    static ExternalSemaphoreDescriptor semaphore(MemorySegment descriptor, Importable<ExternalSemaphoreType> importable) {
        MemorySegment d = refuseIf(SEMAPHORE.problem(descriptor), descriptor, SEMAPHORE_DESCRIPTOR);
        ExternalSemaphoreType type = SEMAPHORE.type(d);
        importable.require(type, "semaphores");
        return new ExternalSemaphoreDescriptor(type, nativeHandle(d, SEMAPHORE_DESCRIPTOR, type.handleKind()));
    }

    /**
     * What no importer could take in the {@code OrtExternalMemoryDescriptor} at {@code descriptor}, or null: a NULL
     * pointer, a {@code version} javaep does not read, a {@code handle_type} ORT does not define, a {@code size_bytes}
     * of 0 or past 2^63, an {@code offset_bytes} not below it. The handle and whether the type is importable here
     * are the importer's business.
     */
    public static String memoryProblem(MemorySegment descriptor) {
        String problem = MEMORY.problem(descriptor);
        return problem != null ? problem : rangeProblem(descriptor.reinterpret(MEMORY_DESCRIPTOR.byteSize()));
    }

    /** What no importer could take in the {@code OrtExternalSemaphoreDescriptor} at {@code descriptor}, or null. */
    public static String semaphoreProblem(MemorySegment descriptor) {
        return SEMAPHORE.problem(descriptor);
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
    private static String versionProblem(String struct, int version) {
        if (version < FIRST_VERSION) {
            return struct + ".version is " + version + "; set it to ORT_API_VERSION (the struct exists since API "
                    + FIRST_VERSION + ")";
        }
        if (version > NEWEST_KNOWN_VERSION) {
            return struct + ".version " + version + " is newer than javaep knows (" + FIRST_VERSION + "-"
                    + NEWEST_KNOWN_VERSION + "): it may carry fields javaep would ignore; update javaep, or fill the struct"
                    + " as version " + NEWEST_KNOWN_VERSION;
        }
        return null;
    }

    /** The descriptor at {@code pointer}, sized as {@code layout}; a {@code problem} is refused as ORT_INVALID_ARGUMENT. */
    private static MemorySegment refuseIf(String problem, MemorySegment pointer, StructLayout layout) {
        if (problem != null) {
            throw new IllegalArgumentException("javaep: " + problem);
        }
        return pointer.reinterpret(layout.byteSize());
    }

    /** The descriptor at {@code pointer}, sized as {@code layout} (named after the C struct), with a version javaep reads. */
    private static MemorySegment versionedStruct(MemorySegment pointer, StructLayout layout) {
        return refuseIf(headerProblem(pointer, layout), pointer, layout);
    }

    /** What is wrong with the pointer or the {@code version} of the descriptor at {@code pointer}, or null. */
    private static String headerProblem(MemorySegment pointer, StructLayout layout) {
        String struct = layout.name().orElseThrow();
        if (pointer.equals(MemorySegment.NULL)) {
            return "the " + struct + " pointer is NULL";
        }
        return versionProblem(struct, pointer.reinterpret(layout.byteSize()).get(ValueLayout.JAVA_INT, offset(layout, "version")));
    }

    /** The memory descriptor's size and offset, which every importer needs as the same sane pair. */
    private static String rangeProblem(MemorySegment d) {
        long size = d.get(ValueLayout.JAVA_LONG, SIZE_BYTES);
        long offsetBytes = d.get(ValueLayout.JAVA_LONG, OFFSET_BYTES);
        if (size == 0) {
            return "OrtExternalMemoryDescriptor.size_bytes is 0; set it to the size of the whole external allocation"
                    + " (for Vulkan: VkMemoryRequirements.size as allocated)";
        }
        if (size < 0 || offsetBytes < 0) { // size_t values past 2^63: no allocation is that large
            return "OrtExternalMemoryDescriptor size_bytes " + Long.toUnsignedString(size) + " / offset_bytes "
                    + Long.toUnsignedString(offsetBytes) + " is out of range (a negative value cast to size_t?)";
        }
        if (Long.compareUnsigned(offsetBytes, size) >= 0) {
            return "OrtExternalMemoryDescriptor.offset_bytes " + offsetBytes + " is not below size_bytes " + size
                    + ": nothing of the allocation would be imported";
        }
        return null;
    }

    /**
     * One kind of handle descriptor: its layout, and its type {@code field} (named {@code cType} in C), which must
     * be one of the values javaep's enum defines ({@code fromOrt}).
     */
    private record Kind<T extends Enum<T>>(StructLayout layout, String field, String cType,
                                           IntFunction<Optional<T>> fromOrt, List<T> known) {
        /** What is wrong with the pointer, version or type of the descriptor at {@code pointer}, or null. */
        String problem(MemorySegment pointer) {
            String problem = headerProblem(pointer, layout);
            if (problem != null) {
                return problem;
            }
            int raw = rawType(pointer.reinterpret(layout.byteSize()));
            return fromOrt.apply(raw).isPresent() ? null : layout.name().orElseThrow() + "." + field + " " + raw
                    + " is not an " + cType + " (known: " + known + ")";
        }

        /** The type of a descriptor {@link #problem} passed. */
        T type(MemorySegment d) {
            return fromOrt.apply(rawType(d)).orElseThrow();
        }

        private int rawType(MemorySegment d) {
            return d.get(ValueLayout.JAVA_INT, offset(layout, field));
        }
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
