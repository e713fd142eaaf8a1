package dev.javaep.harness.ort;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.javaep.harness.ort.ExternalResourceImporter.MemoryDescriptor;
import dev.javaep.ort.FunctionTable;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtInteropApiSlot;
import dev.javaep.ort.OrtInteropLayouts;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.function.Consumer;

/**
 * An {@code OrtExternalMemoryHandle} an EP returned from {@link ExternalResourceImporter#importMemory}.
 * The pointer is the EP's own object, which starts with ORT's base struct; the accessors read that base
 * struct as the EP filled it, so tests can check what the EP put there. Owned: {@link #close()} calls
 * {@code ReleaseExternalMemoryHandle} (ORT calls the handle's {@code Release}). Close tensors made over
 * this memory first.
 */
public final class ExternalMemory implements AutoCloseable {
    private static final StructLayout LAYOUT = OrtInteropLayouts.MEMORY_HANDLE;
    private static final long VERSION = OrtInteropLayouts.offset(LAYOUT, "version");
    private static final long EP_DEVICE = OrtInteropLayouts.offset(LAYOUT, "ep_device");
    private static final long DESCRIPTOR = OrtInteropLayouts.offset(LAYOUT, "descriptor");
    private static final long RELEASE = OrtInteropLayouts.offset(LAYOUT, "Release");

    private final FunctionTable interop;
    private final Consumer<AutoCloseable> onClose; // tells the importer this handle is gone
    private MemorySegment handle;

    ExternalMemory(FunctionTable interop, MemorySegment handle, Consumer<AutoCloseable> onClose) {
        this.interop = interop;
        this.handle = handle.reinterpret(LAYOUT.byteSize());
        this.onClose = onClose;
    }

    /** The {@code OrtExternalMemoryHandle*} (the EP's object). */
    public MemorySegment handle() {
        if (handle == null) {
            throw new IllegalStateException("ExternalMemory is closed");
        }
        return handle;
    }

    /** The base struct's {@code version}: ORT requires the EP to put the ORT API version there. */
    public int version() {
        return handle().get(JAVA_INT, VERSION);
    }

    /** The base struct's {@code ep_device}: the address of the {@code OrtEpDevice} the EP says the memory belongs to. */
    public long epDevice() {
        return handle().get(ADDRESS, EP_DEVICE).address();
    }

    /** The base struct's copy of the descriptor the memory was imported with, as the EP stored it. */
    public MemoryDescriptor descriptor() {
        return MemoryDescriptor.read(handle().asSlice(DESCRIPTOR, OrtInteropLayouts.MEMORY_DESCRIPTOR.byteSize()));
    }

    /** The stored descriptor's {@code handle_type}. */
    public int handleType() {
        return descriptor().handleType();
    }

    /** The stored descriptor's {@code size_bytes}. */
    public long sizeBytes() {
        return descriptor().sizeBytes();
    }

    /** The stored descriptor's {@code offset_bytes}. */
    public long offsetBytes() {
        return descriptor().offsetBytes();
    }

    /** The address of the base struct's {@code Release} function; ORT calls it, so 0 is an EP bug. */
    public long releaseFunction() {
        return handle().get(ADDRESS, RELEASE).address();
    }

    /** {@code ReleaseExternalMemoryHandle}. Idempotent. */
    @Override
    public void close() {
        if (handle != null) {
            try {
                interop.handle(OrtInteropApiSlot.ReleaseExternalMemoryHandle).invokeExact(handle);
            } catch (Throwable t) {
                throw OrtApi.rethrow(t);
            }
            handle = null;
            onClose.accept(this);
        }
    }

    @Override
    public String toString() {
        return handle == null ? "ExternalMemory[closed]" : "ExternalMemory[" + descriptor() + "]";
    }
}
