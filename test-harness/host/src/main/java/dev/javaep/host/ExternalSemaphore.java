package dev.javaep.host;

import dev.javaep.host.ExternalResourceImporter.SemaphoreDescriptor;
import dev.javaep.ort.FunctionTable;
import dev.javaep.ort.OrtInteropApiSlot;
import dev.javaep.ort.OrtInteropLayouts;
import java.lang.foreign.MemorySegment;
import java.util.function.Consumer;

/**
 * An {@code OrtExternalSemaphoreHandle} an EP returned from {@link ExternalResourceImporter#importSemaphore}.
 * {@link #close()} is {@code ReleaseExternalSemaphoreHandle}: close it only after the waits and signals
 * queued with it have run.
 */
public final class ExternalSemaphore extends ImportedHandle {
    ExternalSemaphore(FunctionTable interop, MemorySegment handle, Consumer<AutoCloseable> onClose) {
        super(interop, OrtInteropLayouts.SEMAPHORE_HANDLE, OrtInteropApiSlot.ReleaseExternalSemaphoreHandle, handle, onClose);
    }

    /** The base struct's copy of the descriptor the semaphore was imported with, as the EP stored it. */
    public SemaphoreDescriptor descriptor() {
        return SemaphoreDescriptor.read(descriptorCopy(OrtInteropLayouts.SEMAPHORE_DESCRIPTOR.byteSize()));
    }

    /** The stored descriptor's {@code type}. */
    public int type() {
        return descriptor().type();
    }

    @Override
    public String toString() {
        return isClosed() ? "ExternalSemaphore[closed]" : "ExternalSemaphore[" + descriptor() + "]";
    }
}
