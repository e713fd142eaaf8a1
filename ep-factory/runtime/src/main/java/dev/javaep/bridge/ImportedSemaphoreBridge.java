package dev.javaep.bridge;

import static dev.javaep.ort.OrtInteropLayouts.SEMAPHORE_DESCRIPTOR;
import static dev.javaep.ort.OrtInteropLayouts.SEMAPHORE_HANDLE;
import static dev.javaep.ort.OrtInteropLayouts.offset;

import dev.javaep.ort.OrtExternalSemaphoreHandleStruct;
import dev.javaep.spi.ExternalSemaphoreDescriptor;
import dev.javaep.spi.ImportedSemaphore;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.util.EnumSet;
import java.util.Optional;

/** An {@code OrtExternalSemaphoreHandle} (ORT's base struct) in front of one {@link ImportedSemaphore}. */
final class ImportedSemaphoreBridge {
    private static final HandleRegistry<ImportedSemaphoreBridge> REGISTRY = new HandleRegistry<>("OrtExternalSemaphoreHandle");
    private static final CallbackStruct<OrtExternalSemaphoreHandleStruct> STRUCT =
            new CallbackStruct<>(OrtExternalSemaphoreHandleStruct.class, MethodHandles.lookup());

    private final ImporterBridge importer;
    private final ImportedSemaphore semaphore;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment struct;

    private ImportedSemaphoreBridge(ImporterBridge importer, ImportedSemaphore semaphore,
                                    ExternalSemaphoreDescriptor descriptor, int descriptorVersion) {
        this.importer = importer;
        this.semaphore = semaphore;
        this.struct = STRUCT.allocate(arena, importer.runtime().apiVersion(), EnumSet.allOf(OrtExternalSemaphoreHandleStruct.class));
        struct.set(ValueLayout.ADDRESS, offset(SEMAPHORE_HANDLE, "ep_device"), importer.epDevice());
        MemorySegment copy = struct.asSlice(offset(SEMAPHORE_HANDLE, "descriptor"), SEMAPHORE_DESCRIPTOR.byteSize());
        copy.set(ValueLayout.JAVA_INT, 0, descriptorVersion);
        copy.set(ValueLayout.JAVA_INT, offset(SEMAPHORE_DESCRIPTOR, "type"), descriptor.type().ortValue());
        REGISTRY.register(struct, this); // native_handle left NULL, as for memory handles
    }

    static MemorySegment create(ImporterBridge importer, ImportedSemaphore semaphore, ExternalSemaphoreDescriptor descriptor,
                                int descriptorVersion) {
        return importer.references().retainFor(
                () -> new ImportedSemaphoreBridge(importer, semaphore, descriptor, descriptorVersion).struct, semaphore::close);
    }

    static Optional<ImportedSemaphoreBridge> find(MemorySegment handle) {
        return Optional.ofNullable(REGISTRY.find(handle));
    }

    ImporterBridge importer() {
        return importer;
    }

    ImportedSemaphore semaphore() {
        return semaphore;
    }

    /** {@code handle->Release}. */
    static void release(MemorySegment handle) {
        ImportedSemaphoreBridge bridge = REGISTRY.release(handle);
        if (bridge == null) {
            return;
        }
        try (bridge.arena) {
            bridge.semaphore.close();
        } finally {
            bridge.importer.references().release();
        }
    }
}
