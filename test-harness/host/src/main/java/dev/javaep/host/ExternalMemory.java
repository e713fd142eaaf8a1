package dev.javaep.host;

import dev.javaep.host.ExternalResourceImporter.MemoryDescriptor;
import dev.javaep.ort.FunctionTable;
import dev.javaep.ort.OrtInteropApiSlot;
import dev.javaep.ort.OrtInteropLayouts;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * An {@code OrtExternalMemoryHandle} an EP returned from {@link ExternalResourceImporter#importMemory}.
 * {@link #close()} is {@code ReleaseExternalMemoryHandle}. On javaep's EPs, tensors made over the memory
 * keep it mapped until they are released; other EPs may need the tensors closed first.
 */
public final class ExternalMemory extends ImportedHandle<MemoryDescriptor> {
    ExternalMemory(FunctionTable interop, MemorySegment handle, Consumer<AutoCloseable> onClose) {
        super(interop, OrtInteropLayouts.MEMORY_HANDLE, OrtInteropApiSlot.ReleaseExternalMemoryHandle,
                OrtInteropLayouts.MEMORY_DESCRIPTOR, MemoryDescriptor::read, handle, onClose);
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
}
