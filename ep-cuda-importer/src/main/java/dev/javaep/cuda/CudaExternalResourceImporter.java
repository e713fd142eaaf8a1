package dev.javaep.cuda;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.CudaException;
import dev.javaep.os.Posix;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.ort.Platform;
import dev.javaep.spi.DeviceStream;
import dev.javaep.spi.ExternalMemoryDescriptor;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalResourceImporter;
import dev.javaep.spi.ExternalSemaphoreDescriptor;
import dev.javaep.spi.ExternalSemaphoreType;
import dev.javaep.spi.ImportedMemory;
import dev.javaep.spi.ImportedSemaphore;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Imports Vulkan, D3D12 and CUDA-VMM memory and timeline semaphores into one CUDA device:
 * {@code cuImportExternalMemory} + {@code cuExternalMemoryGetMappedBuffer} (tensors are views of the
 * mapped range), and {@code cuWait/SignalExternalSemaphoresAsync} on the CUstream of the app's
 * {@code OrtSyncStream}.
 *
 * <p>Handle ownership: a Win32 HANDLE is never closed here (CUDA does not take it; the app closes it).
 * An fd belongs to the import once {@link #importMemory}/{@link #importSemaphore} returned, and is
 * still the app's if they threw. CUDA takes an fd at {@code cuImport*} but a later step can still
 * fail, so the driver is given a duplicate, and the app's fd is closed only once everything worked.
 */
final class CudaExternalResourceImporter implements ExternalResourceImporter {
    private final CudaDevice device;
    private final CudaDriver driver;
    private final boolean windows;

    CudaExternalResourceImporter(CudaDevice device) {
        this(device, Platform.WINDOWS);
    }

    /** @param windows which OS's handle types to import (a parameter so tests cover both) */
    CudaExternalResourceImporter(CudaDevice device, boolean windows) {
        this.device = device;
        this.driver = device.driver();
        this.windows = windows;
    }

    @Override
    public boolean canImportMemory(ExternalMemoryType type) {
        return CudaExternalHandleType.of(type).map(this::availableHere).orElse(false);
    }

    @Override
    public boolean canImportSemaphore(ExternalSemaphoreType type) {
        return availableHere(CudaExternalHandleType.of(type));
    }

    private boolean availableHere(CudaExternalHandleType handleType) {
        return handleType.windows() == windows && (windows || Posix.AVAILABLE);
    }

    @Override
    public ImportedMemory importMemory(ExternalMemoryDescriptor descriptor) {
        CudaExternalHandleType handleType = CudaExternalHandleType.of(descriptor.type())
                .filter(this::availableHere).orElseThrow(() -> new UnsupportedOperationException(
                        "javaep: " + JavaCudaExecutionProviderFactory.NAME + " cannot import " + descriptor.type()));
        device.makeCurrent();
        if (handleType.windows()) {
            long external = importOrRefuse(() -> driver.importExternalMemoryWin32(handleType.cudaType(),
                    descriptor.nativeHandle(), 0, descriptor.sizeBytes(), handleType.flags()), descriptor);
            return mapOrDestroy(external, descriptor);
        }
        int appFd = descriptor.fileDescriptor();
        int driverFd = duplicate(appFd);
        long external;
        try {
            external = importOrRefuse(() -> driver.importExternalMemoryFd(driverFd, descriptor.sizeBytes(),
                    handleType.flags()), descriptor);
        } catch (RuntimeException e) {
            Posix.close(driverFd); // not taken by the driver
            throw e;
        }
        ImportedMemory memory = mapOrDestroy(external, descriptor); // destroying closes driverFd
        Posix.close(appFd);
        return memory;
    }

    private ImportedMemory mapOrDestroy(long external, ExternalMemoryDescriptor descriptor) {
        try {
            long address = driver.externalMemoryGetMappedBuffer(external, descriptor.offsetBytes(), descriptor.mappedBytes());
            return new CudaImportedMemory(external, address, descriptor.mappedBytes());
        } catch (CudaException e) {
            driver.destroyExternalMemory(external);
            throw new IllegalArgumentException("javaep: CUDA imported the " + descriptor.type() + " memory but cannot map "
                    + descriptor.mappedBytes() + " bytes at offset " + descriptor.offsetBytes() + " of it: " + e.getMessage()
                    + " (offsets must be aligned as the exporting API requires)");
        }
    }

    private long importOrRefuse(java.util.function.LongSupplier importCall, ExternalMemoryDescriptor descriptor) {
        try {
            return importCall.getAsLong();
        } catch (CudaException e) {
            throw new IllegalArgumentException("javaep: CUDA device " + device.ordinal() + " cannot import this "
                    + descriptor.type() + " handle (" + descriptor.sizeBytes() + " bytes): " + e.getMessage()
                    + ". Is it an export of this GPU, and size_bytes the allocation's size?");
        }
    }

    @Override
    public ImportedSemaphore importSemaphore(ExternalSemaphoreDescriptor descriptor) {
        CudaExternalHandleType handleType = CudaExternalHandleType.of(descriptor.type());
        if (!availableHere(handleType)) {
            throw new UnsupportedOperationException("javaep: " + JavaCudaExecutionProviderFactory.NAME + " cannot import "
                    + descriptor.type());
        }
        device.makeCurrent();
        if (handleType.windows()) {
            return new CudaImportedSemaphore(descriptor.type(), importSemaphoreOrRefuse(() ->
                    driver.importExternalSemaphoreWin32(handleType.cudaType(), descriptor.nativeHandle(), 0), descriptor));
        }
        int appFd = descriptor.fileDescriptor();
        int driverFd = duplicate(appFd);
        long semaphore;
        try {
            semaphore = importSemaphoreOrRefuse(() -> driver.importExternalSemaphoreFd(handleType.cudaType(), driverFd),
                    descriptor);
        } catch (RuntimeException e) {
            Posix.close(driverFd);
            throw e;
        }
        Posix.close(appFd);
        return new CudaImportedSemaphore(descriptor.type(), semaphore);
    }

    private long importSemaphoreOrRefuse(java.util.function.LongSupplier importCall, ExternalSemaphoreDescriptor descriptor) {
        try {
            return importCall.getAsLong();
        } catch (CudaException e) {
            throw new IllegalArgumentException("javaep: CUDA device " + device.ordinal() + " cannot import this "
                    + descriptor.type() + " handle: " + e.getMessage() + ". Is it a timeline semaphore exported by this GPU's"
                    + " Vulkan/D3D12 device?");
        }
    }

    private static int duplicate(int fd) {
        try {
            return Posix.dup(fd);
        } catch (Posix.PosixException e) {
            throw new IllegalArgumentException("javaep: native_handle " + fd + " is not an open file descriptor: "
                    + e.getMessage());
        }
    }

    @Override
    public void waitSemaphore(ImportedSemaphore semaphore, DeviceStream stream, long value) {
        CudaImportedSemaphore imported = semaphore(semaphore);
        long cuStream = cudaStream(stream);
        device.makeCurrent();
        imported.usedOn(cuStream);
        driver.waitExternalSemaphoreAsync(imported.handle, value, cuStream);
    }

    @Override
    public void signalSemaphore(ImportedSemaphore semaphore, DeviceStream stream, long value) {
        CudaImportedSemaphore imported = semaphore(semaphore);
        long cuStream = cudaStream(stream);
        device.makeCurrent();
        imported.usedOn(cuStream);
        driver.signalExternalSemaphoreAsync(imported.handle, value, cuStream);
    }

    private static CudaImportedSemaphore semaphore(ImportedSemaphore semaphore) {
        if (!(semaphore instanceof CudaImportedSemaphore imported)) {
            throw new IllegalArgumentException("javaep: the semaphore was not imported by "
                    + JavaCudaExecutionProviderFactory.NAME);
        }
        if (imported.closed.get()) {
            throw new OrtException(OrtErrorCode.INVALID_ARGUMENT, "javaep: the semaphore was released");
        }
        return imported;
    }

    private long cudaStream(DeviceStream stream) {
        if (!(stream instanceof CudaStream cudaStream) || cudaStream.device() != device) {
            throw new IllegalArgumentException("javaep: the OrtSyncStream belongs to another device than the importer's"
                    + " (CUDA device " + device.ordinal() + "); create the stream on the same OrtEpDevice");
        }
        return cudaStream.handle();
    }

    /** The mapped range of one external allocation. */
    private final class CudaImportedMemory implements ImportedMemory {
        private final long external;
        private final long address;
        private final long byteSize;
        private final AtomicBoolean closed = new AtomicBoolean();

        CudaImportedMemory(long external, long address, long byteSize) {
            this.external = external;
            this.address = address;
            this.byteSize = byteSize;
        }

        @Override
        public long address() {
            return address;
        }

        @Override
        public long byteSize() {
            return byteSize;
        }

        /** Runs when the app's handle and every tensor over it are released. */
        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            device.makeCurrent();
            // Kernels queued on a stream ORT or the app still holds may read the range: let them finish.
            driver.ctxSynchronize();
            try {
                driver.memFree(address);
            } finally {
                driver.destroyExternalMemory(external);
            }
        }
    }

    /** One imported timeline semaphore, and the streams it was used on. */
    private final class CudaImportedSemaphore implements ImportedSemaphore {
        private final ExternalSemaphoreType type;
        private final long handle;
        private final Set<Long> streams = ConcurrentHashMap.newKeySet();
        private final AtomicBoolean closed = new AtomicBoolean();

        CudaImportedSemaphore(ExternalSemaphoreType type, long handle) {
            this.type = type;
            this.handle = handle;
        }

        void usedOn(long stream) {
            streams.add(stream);
        }

        @Override
        public ExternalSemaphoreType type() {
            return type;
        }

        /** cuDestroyExternalSemaphore needs queued waits and signals done: finish the streams that still exist. */
        @Override
        public void close() {
            if (!closed.compareAndSet(false, true)) {
                return;
            }
            device.makeCurrent();
            for (long stream : streams) {
                if (CudaStream.isLive(stream)) {
                    driver.streamSynchronize(stream);
                }
            }
            driver.destroyExternalSemaphore(handle);
        }
    }
}
