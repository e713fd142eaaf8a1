package dev.javaep.spi;

/**
 * External memory an {@link ExternalResourceImporter} mapped: the range {@code [offset, size)} of the
 * app's allocation, at {@link #address()} in the EP's memory (device memory for a device EP, host
 * memory for a host EP). Tensors are views into it. javaep calls {@link #close()} exactly once, after
 * the app released the handle and every tensor made from it is gone.
 */
public interface ImportedMemory extends AutoCloseable {
    /** Address of the first byte of the imported range. */
    long address();

    /** Bytes from {@link #address()} to the end of the range. */
    long byteSize();

    /** Unmaps and frees the import (for fds: closes the fd the importer took over). */
    @Override
    void close();
}
