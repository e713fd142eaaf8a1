package dev.javaep.spi;

/**
 * An external timeline semaphore an {@link ExternalResourceImporter} imported. javaep calls
 * {@link #close()} exactly once, after the app released the handle.
 */
public interface ImportedSemaphore extends AutoCloseable {
    ExternalSemaphoreType type();

    /** Frees the import; waits and signals already queued on streams must complete first (the importer sees to it). */
    @Override
    void close();
}
