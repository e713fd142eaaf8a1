package dev.javaep.spi;

/** An app's {@code OrtExternalSemaphoreDescriptor}, checked by javaep (importable type, handle not NULL). */
public record ExternalSemaphoreDescriptor(ExternalSemaphoreType type, long nativeHandle) {
    /** The handle as a POSIX fd; only for {@link ExternalMemoryType.NativeHandleKind#FILE_DESCRIPTOR} types. */
    public int fileDescriptor() {
        if (type.handleKind() != ExternalMemoryType.NativeHandleKind.FILE_DESCRIPTOR) {
            throw new IllegalStateException(type + " carries no file descriptor");
        }
        return (int) nativeHandle;
    }
}
