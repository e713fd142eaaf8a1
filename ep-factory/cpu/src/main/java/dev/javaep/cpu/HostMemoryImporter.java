package dev.javaep.cpu;

import dev.javaep.os.Posix;
import dev.javaep.spi.ExternalMemoryDescriptor;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalResourceImporter;
import dev.javaep.spi.ExternalSemaphoreType;
import dev.javaep.spi.ImportedMemory;
import java.lang.foreign.MemorySegment;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * The CPU EP's importer: real zero-copy for memory that can be mapped into this process.
 * <ul>
 * <li>{@code VK_MEMORY_OPAQUE_FD} (Linux): an fd of a memfd or shared-memory file, as software Vulkan
 * (lavapipe), PipeWire and Wayland shm export them. It is mapped {@code MAP_SHARED}, so the app and
 * ORT see the same bytes; a lavapipe fd's data starts after Mesa's header ({@link MesaMemoryFd}).
 * A device fd (a GPU driver's opaque fd) cannot be mapped and is refused.</li>
 * <li>{@code HOST_ALLOCATION} (ORT 1.30 and later): a host pointer the app owns and keeps valid.</li>
 * </ul>
 * No semaphores: the CPU EP runs on the calling thread, so an app orders work by waiting on its own
 * fences before {@code Run}.
 */
final class HostMemoryImporter implements ExternalResourceImporter {
    @Override
    public boolean canImportMemory(ExternalMemoryType type) {
        return switch (type) {
            case VK_MEMORY_OPAQUE_FD -> Posix.AVAILABLE;
            case HOST_ALLOCATION -> true;
            case D3D12_RESOURCE, D3D12_HEAP, VK_MEMORY_WIN32 -> false;
        };
    }

    @Override
    public boolean canImportSemaphore(ExternalSemaphoreType type) {
        return false;
    }

    @Override
    public ImportedMemory importMemory(ExternalMemoryDescriptor descriptor) {
        return switch (descriptor.type()) {
            case VK_MEMORY_OPAQUE_FD -> mapFileDescriptor(descriptor);
            case HOST_ALLOCATION -> new AppOwnedMemory(descriptor.nativeHandle() + descriptor.offsetBytes(),
                    descriptor.mappedBytes());
            default -> throw new UnsupportedOperationException("javaep: the CPU EP cannot import " + descriptor.type());
        };
    }

    private static ImportedMemory mapFileDescriptor(ExternalMemoryDescriptor descriptor) {
        int fd = descriptor.fileDescriptor();
        Posix.FileStatus status;
        try {
            status = Posix.fstat(fd);
        } catch (Posix.PosixException e) {
            throw new IllegalArgumentException("javaep: native_handle " + fd + " is not an open file descriptor: "
                    + e.getMessage());
        }
        if (!status.regularFile()) {
            throw new IllegalArgumentException("javaep: fd " + fd + " cannot be mapped into host memory: it is not a"
                    + " memfd or shared-memory file (a GPU driver's opaque fd is device memory: import it with the GPU's EP,"
                    + " e.g. JavaCudaExecutionProvider)");
        }
        long fileSize = status.size();
        long base;
        try {
            base = Posix.mapShared(fd, fileSize);
        } catch (Posix.PosixException e) {
            throw new IllegalArgumentException("javaep: fd " + fd + " cannot be mapped: " + e.getMessage());
        }
        long dataOffset = MesaMemoryFd.dataOffset(MemorySegment.ofAddress(base).reinterpret(fileSize));
        if (fileSize - dataOffset < descriptor.sizeBytes()) {
            Posix.unmap(base, fileSize);
            throw new IllegalArgumentException("javaep: fd " + fd + " holds " + (fileSize - dataOffset) + " bytes of data,"
                    + " less than size_bytes " + descriptor.sizeBytes());
        }
        // The import owns the fd now (as after a CUDA import); the mapping outlives it.
        Posix.close(fd);
        return new MappedMemory(base, fileSize, dataOffset + descriptor.offsetBytes(), descriptor.mappedBytes());
    }

    /** A {@code MAP_SHARED} mapping of the whole file; the import is {@code byteSize} bytes from {@code offset}. */
    private static final class MappedMemory implements ImportedMemory {
        private final long base;
        private final long length;
        private final long offset;
        private final long byteSize;
        private final AtomicBoolean closed = new AtomicBoolean();

        MappedMemory(long base, long length, long offset, long byteSize) {
            this.base = base;
            this.length = length;
            this.offset = offset;
            this.byteSize = byteSize;
        }

        @Override
        public long address() {
            return base + offset;
        }

        @Override
        public long byteSize() {
            return byteSize;
        }

        @Override
        public void close() {
            if (closed.compareAndSet(false, true)) {
                Posix.unmap(base, length);
            }
        }
    }

    /** A host allocation the app keeps; nothing to free. */
    private record AppOwnedMemory(long address, long byteSize) implements ImportedMemory {
        @Override
        public void close() {}
    }
}
