package dev.javaep.ort;

import static java.lang.foreign.MemoryLayout.PathElement.groupElement;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * The data structs of ORT's external-resource interop (API 24; unchanged to API 30): the three
 * descriptors apps fill, and the handle base structs an EP embeds at the start of its own handles
 * (onnxruntime_ep_c_api.h: "EPs derive from this struct"). LP64 and LLP64 alike: only fixed-width
 * fields, pointers and size_t.
 */
public final class OrtInteropLayouts {
    private OrtInteropLayouts() {}

    /** The first API version with these structs, and the newest whose layouts javaep knows (they match). */
    public static final int FIRST_VERSION = 24;
    public static final int NEWEST_KNOWN_VERSION = 30;

    /** {@code OrtExternalMemoryDescriptor}: 32 bytes. */
    public static final StructLayout MEMORY_DESCRIPTOR = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("version"),
            ValueLayout.JAVA_INT.withName("handle_type"),
            ValueLayout.ADDRESS.withName("native_handle"),
            ValueLayout.JAVA_LONG.withName("size_bytes"),
            ValueLayout.JAVA_LONG.withName("offset_bytes")).withName("OrtExternalMemoryDescriptor");

    /** {@code OrtExternalSemaphoreDescriptor}: 16 bytes. */
    public static final StructLayout SEMAPHORE_DESCRIPTOR = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("version"),
            ValueLayout.JAVA_INT.withName("type"),
            ValueLayout.ADDRESS.withName("native_handle")).withName("OrtExternalSemaphoreDescriptor");

    /** {@code OrtExternalTensorDescriptor}: 32 bytes. {@code offset_bytes} is relative to the memory descriptor's. */
    public static final StructLayout TENSOR_DESCRIPTOR = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("version"),
            ValueLayout.JAVA_INT.withName("element_type"),
            ValueLayout.ADDRESS.withName("shape"),
            ValueLayout.JAVA_LONG.withName("rank"),
            ValueLayout.JAVA_LONG.withName("offset_bytes")).withName("OrtExternalTensorDescriptor");

    /** {@code OrtExternalMemoryHandle} base struct: 56 bytes; ORT's ReleaseExternalMemoryHandle calls {@code Release}. */
    public static final StructLayout MEMORY_HANDLE = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("version"),
            MemoryLayout.paddingLayout(4),
            ValueLayout.ADDRESS.withName("ep_device"),
            MEMORY_DESCRIPTOR.withName("descriptor"),
            ValueLayout.ADDRESS.withName("Release")).withName("OrtExternalMemoryHandle");

    /** {@code OrtExternalSemaphoreHandle} base struct: 40 bytes. */
    public static final StructLayout SEMAPHORE_HANDLE = MemoryLayout.structLayout(
            ValueLayout.JAVA_INT.withName("version"),
            MemoryLayout.paddingLayout(4),
            ValueLayout.ADDRESS.withName("ep_device"),
            SEMAPHORE_DESCRIPTOR.withName("descriptor"),
            ValueLayout.ADDRESS.withName("Release")).withName("OrtExternalSemaphoreHandle");

    /** Byte offset of a named field of {@code layout}. */
    public static long offset(StructLayout layout, String field) {
        return layout.byteOffset(groupElement(field));
    }
}
