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
public final class ExternalSemaphore extends ImportedHandle<SemaphoreDescriptor> {
    ExternalSemaphore(FunctionTable interop, MemorySegment handle, Consumer<AutoCloseable> onClose) {
        super(interop, OrtInteropLayouts.SEMAPHORE_HANDLE, OrtInteropApiSlot.ReleaseExternalSemaphoreHandle,
                OrtInteropLayouts.SEMAPHORE_DESCRIPTOR, SemaphoreDescriptor::read, handle, onClose);
    }

    /** The stored descriptor's {@code type}. */
    public int type() {
        return descriptor().type();
    }
}
