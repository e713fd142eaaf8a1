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
import java.util.Optional;

/** An {@code OrtExternalSemaphoreHandle} (ORT's base struct) in front of one {@link ImportedSemaphore}. */
final class ImportedSemaphoreBridge extends StructBridge {
    private static final CallbackStruct<OrtExternalSemaphoreHandleStruct, ImportedSemaphoreBridge> STRUCT =
            new CallbackStruct<>(OrtExternalSemaphoreHandleStruct.class, MethodHandles.lookup());

    private final ImporterBridge importer;
    private final ImportedSemaphore semaphore;

    private ImportedSemaphoreBridge(ImporterBridge importer, ImportedSemaphore semaphore,
                                    ExternalSemaphoreDescriptor descriptor, int descriptorVersion) {
        super(STRUCT, importer.runtime());
        this.importer = importer;
        this.semaphore = semaphore;
        struct.set(ValueLayout.ADDRESS, offset(SEMAPHORE_HANDLE, "ep_device"), importer.epDevice());
        MemorySegment copy = struct.asSlice(offset(SEMAPHORE_HANDLE, "descriptor"), SEMAPHORE_DESCRIPTOR.byteSize());
        copy.set(ValueLayout.JAVA_INT, 0, descriptorVersion);
        copy.set(ValueLayout.JAVA_INT, offset(SEMAPHORE_DESCRIPTOR, "type"), descriptor.type().ortValue());
        STRUCT.register(this); // native_handle left NULL, as for memory handles
    }

    static MemorySegment create(ImporterBridge importer, ImportedSemaphore semaphore, ExternalSemaphoreDescriptor descriptor,
                                int descriptorVersion) {
        return importer.references().retainFor(
                () -> new ImportedSemaphoreBridge(importer, semaphore, descriptor, descriptorVersion).struct, semaphore::close);
    }

    static Optional<ImportedSemaphoreBridge> find(MemorySegment handle) {
        return Optional.ofNullable(STRUCT.find(handle));
    }

    ImporterBridge importer() {
        return importer;
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
