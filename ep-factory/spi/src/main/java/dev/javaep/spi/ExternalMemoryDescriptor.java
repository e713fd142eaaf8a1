package dev.javaep.spi;

/**
 * An app's {@code OrtExternalMemoryDescriptor}, already checked by javaep: the type is one the
 * importer said it can import, the handle is not NULL, {@code 0 <= offsetBytes < sizeBytes}.
 *
 * @param nativeHandle the handle as a number: a Win32 HANDLE, an fd, or a host address (see
 *                     {@link ExternalMemoryType#handleKind()})
 * @param sizeBytes    the size of the whole external allocation
 * @param offsetBytes  where the imported range starts in it; the range is {@code [offsetBytes, sizeBytes)}
 */
public record ExternalMemoryDescriptor(ExternalMemoryType type, long nativeHandle, long sizeBytes, long offsetBytes) {
    public ExternalMemoryDescriptor {
        if (sizeBytes <= 0 || offsetBytes < 0 || offsetBytes >= sizeBytes) {
            throw new IllegalArgumentException("external memory range [" + Long.toUnsignedString(offsetBytes) + ", "
                    + Long.toUnsignedString(sizeBytes) + ") is empty or negative");
        }
    }

    /** The bytes from the offset to the end of the allocation: what gets mapped. */
    public long mappedBytes() {
        return sizeBytes - offsetBytes;
    }

    /** The handle as a POSIX fd; only for {@link ExternalMemoryType.NativeHandleKind#FILE_DESCRIPTOR} types. */
    public int fileDescriptor() {
        if (type.handleKind() != ExternalMemoryType.NativeHandleKind.FILE_DESCRIPTOR) {
            throw new IllegalStateException(type + " carries no file descriptor");
        }
        return (int) nativeHandle;
    }
}
