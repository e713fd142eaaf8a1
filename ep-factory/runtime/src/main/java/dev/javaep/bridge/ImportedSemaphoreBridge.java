package dev.javaep.bridge;

import static dev.javaep.ort.OrtInteropLayouts.SEMAPHORE_DESCRIPTOR;
import static dev.javaep.ort.OrtInteropLayouts.SEMAPHORE_HANDLE;
import static dev.javaep.ort.OrtInteropLayouts.offset;

import dev.javaep.ort.OrtExternalSemaphoreHandleStruct;
import dev.javaep.spi.ExternalSemaphoreDescriptor;
import dev.javaep.spi.ImportedSemaphore;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;

/** An {@code OrtExternalSemaphoreHandle} (ORT's base struct) in front of one {@link ImportedSemaphore}. */
final class ImportedSemaphoreBridge extends ImportedHandleBridge {
    private static final CallbackStruct<OrtExternalSemaphoreHandleStruct, ImportedSemaphoreBridge> STRUCT =
            new CallbackStruct<>(OrtExternalSemaphoreHandleStruct.class, MethodHandles.lookup());

    private final ImportedSemaphore semaphore;

    private ImportedSemaphoreBridge(ImporterBridge importer, ImportedSemaphore semaphore,
                                    ExternalSemaphoreDescriptor descriptor, int descriptorVersion) {
        super(STRUCT, importer, SEMAPHORE_HANDLE, SEMAPHORE_DESCRIPTOR, descriptorVersion);
        this.semaphore = semaphore;
        descriptorCopy.set(ValueLayout.JAVA_INT, offset(SEMAPHORE_DESCRIPTOR, "type"), descriptor.type().ortValue());
        STRUCT.register(this);
    }

    static MemorySegment create(ImporterBridge importer, ImportedSemaphore semaphore, ExternalSemaphoreDescriptor descriptor,
                                int descriptorVersion) {
        return importer.references().retainFor(
                () -> new ImportedSemaphoreBridge(importer, semaphore, descriptor, descriptorVersion).struct, semaphore::close);
    }

    /** The import at {@code handle}, or null when it is none of javaep's (or was released). */
    static ImportedSemaphoreBridge find(MemorySegment handle) {
        return STRUCT.find(handle);
    }

    ImportedSemaphore semaphore() {
        return semaphore;
    }

    /** {@code handle->Release}. */
    static void release(MemorySegment handle) {
        STRUCT.releaseAndClose(handle);
    }

    @Override
    void onRelease() {
        try {
            semaphore.close();
        } finally {
            importer.references().release();
        }
    }
}
