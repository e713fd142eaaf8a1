package dev.javaep.spi;

/**
 * Imports memory and timeline semaphores that an app (a renderer, a video pipeline, a CUDA app) owns,
 * for one EP device: ORT's {@code OrtExternalResourceImporterImpl}, reached by apps through
 * {@code OrtInteropApi}. Tensors made from imported memory are views: no copy.
 *
 * <p>javaep validates every descriptor before an importer sees it (versions, NULL handles, ranges,
 * tensor shapes and sizes, handle ownership across importers) and keeps imported memory alive while
 * tensors use it. What is left here is the device work. Throw {@link UnsupportedOperationException}
 * for a type this importer cannot take (ORT_NOT_IMPLEMENTED), {@link IllegalArgumentException} for a
 * handle the device rejects as invalid. Called from any thread.
 */
public interface ExternalResourceImporter extends AutoCloseable {
    /** Truthfully, for the running OS, runtime and device: {@code false} for anything that would fail for its type alone. */
    boolean canImportMemory(ExternalMemoryType type);

    boolean canImportSemaphore(ExternalSemaphoreType type);

    /**
     * Maps {@code [offsetBytes, sizeBytes)} of the external allocation. For fd types the importer owns
     * the fd once this returns, and the caller still owns it if this throws.
     */
    ImportedMemory importMemory(ExternalMemoryDescriptor descriptor);

    /** Imports a timeline semaphore; fd ownership as for {@link #importMemory}. */
    default ImportedSemaphore importSemaphore(ExternalSemaphoreDescriptor descriptor) {
        throw new UnsupportedOperationException("this importer cannot import " + descriptor.type() + " semaphores");
    }

    /**
     * Makes work queued later on {@code stream} (one of this factory's streams, from the app's
     * {@code OrtSyncStream}) wait until the semaphore reaches {@code value}. Must not block the
     * calling thread. Throw {@link IllegalArgumentException} for a stream of another device.
     */
    default void waitSemaphore(ImportedSemaphore semaphore, DeviceStream stream, long value) {
        throw new UnsupportedOperationException("this importer has no semaphores");
    }

    /** Sets the semaphore to {@code value} once the work queued so far on {@code stream} is done. */
    default void signalSemaphore(ImportedSemaphore semaphore, DeviceStream stream, long value) {
        throw new UnsupportedOperationException("this importer has no semaphores");
    }

    /** Called once, when the app released the importer and every handle it imported is released. */
    @Override
    default void close() {}
}
