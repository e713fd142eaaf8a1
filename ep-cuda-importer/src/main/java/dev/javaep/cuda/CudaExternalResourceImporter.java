package dev.javaep.cuda;

import dev.javaep.cuda.driver.CudaDeviceInfo;
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
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntToLongFunction;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

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
 *
 * <p>Several GPUs: an importer belongs to the one device of the OrtEpDevice it was created for. ORT's descriptors
 * carry no device identity (an fd, a HANDLE, sizes), so nothing can route a buffer to its GPU; CUDA refuses an export
 * of another GPU at {@code cuImport*}, and the refusal names this device's UUID and every other GPU's, so the app can
 * see which {@code cuda.uuid} its {@code VkPhysicalDeviceIDProperties::deviceUUID} (or D3D12 adapter LUID) matches.
 */
final class CudaExternalResourceImporter implements ExternalResourceImporter {
    private final CudaDevice device;
    private final CudaDriver driver;
    private final boolean windows;
    /** Every GPU of the factory, this one included: what a refused import lists. */
    private final List<CudaDeviceInfo> gpus;

    CudaExternalResourceImporter(CudaDevice device) {
        this(device, List.of(device.info()));
    }

    CudaExternalResourceImporter(CudaDevice device, List<CudaDeviceInfo> gpus) {
        this(device, gpus, Platform.WINDOWS);
    }

    /** @param windows which OS's handle types to import (a parameter so tests cover both) */
    CudaExternalResourceImporter(CudaDevice device, boolean windows) {
        this(device, List.of(device.info()), windows);
    }

    CudaExternalResourceImporter(CudaDevice device, List<CudaDeviceInfo> gpus, boolean windows) {
        this.device = device;
        this.driver = device.driver();
        this.windows = windows;
        this.gpus = List.copyOf(gpus);
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
                .filter(this::availableHere).orElseThrow(() -> cannotImport(descriptor.type()));
        device.makeCurrent();
        // Only a refusal's message needs it: built then, not on every frame's import.
        Supplier<String> what = () -> descriptor.type() + " handle (" + descriptor.sizeBytes() + " bytes)";
        if (handleType.windows()) {
            return mapOrDestroy(refuseIfCudaFails(what, () -> driver.importExternalMemoryWin32(handleType.cudaType(),
                    descriptor.nativeHandle(), 0, descriptor.sizeBytes(), handleType.flags())), descriptor);
        }
        int appFd = descriptor.fileDescriptor();
        long external = importDuplicate(appFd, what,
                driverFd -> driver.importExternalMemoryFd(driverFd, descriptor.sizeBytes(), handleType.flags()));
        ImportedMemory memory = mapOrDestroy(external, descriptor); // destroying closes the duplicate only
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

    @Override
    public ImportedSemaphore importSemaphore(ExternalSemaphoreDescriptor descriptor) {
        CudaExternalHandleType handleType = CudaExternalHandleType.of(descriptor.type());
        if (!availableHere(handleType)) {
            throw cannotImport(descriptor.type());
        }
        device.makeCurrent();
        Supplier<String> what = () -> descriptor.type() + " handle";
        if (handleType.windows()) {
            return new CudaImportedSemaphore(descriptor.type(), refuseIfCudaFails(what, () ->
                    driver.importExternalSemaphoreWin32(handleType.cudaType(), descriptor.nativeHandle(), 0)));
        }
        int appFd = descriptor.fileDescriptor();
        long semaphore = importDuplicate(appFd, what,
                driverFd -> driver.importExternalSemaphoreFd(handleType.cudaType(), driverFd));
        Posix.close(appFd);
        return new CudaImportedSemaphore(descriptor.type(), semaphore);
    }

    private static UnsupportedOperationException cannotImport(Object type) {
        return new UnsupportedOperationException("javaep: " + JavaCudaExecutionProviderFactory.NAME + " cannot import " + type);
    }

    /** A driver error on import is the app's handle being wrong for this device: INVALID_ARGUMENT, with CUDA's reason. */
    private long refuseIfCudaFails(Supplier<String> what, LongSupplier importCall) {
        try {
            return importCall.getAsLong();
        } catch (CudaException e) {
            throw new IllegalArgumentException("javaep: CUDA device " + device.ordinal() + " (" + identity(device.info())
                    + ") cannot import this " + what.get() + ": " + e.getMessage() + ". Is it an export of this GPU, of the right"
                    + " kind, and (for memory) size_bytes the allocation's size?" + otherGpus());
        }
    }

    private String identity(CudaDeviceInfo gpu) {
        return gpu.uuidString() + (windows && gpu.luid().isPresent()
                ? ", LUID " + Long.toUnsignedString(gpu.luid().getAsLong()) : "");
    }

    /**
     * The other GPUs by ordinal and UUID: the descriptor says nothing of where the buffer lives, so the app compares
     * its exporting device's UUID (Vulkan {@code deviceUUID}) with these and uses that OrtEpDevice's importer.
     */
    private String otherGpus() {
        String others = gpus.stream().filter(g -> g.ordinal() != device.ordinal())
                .map(g -> "device " + g.ordinal() + " " + identity(g)).collect(Collectors.joining(", "));
        return others.isEmpty() ? "" : " An export of another GPU is refused: this importer's GPU is "
                + identity(device.info()) + "; the others are " + others + ". Create the importer for the OrtEpDevice"
                + " whose metadata cuda.uuid equals the exporting device's UUID (Vulkan VkPhysicalDeviceIDProperties"
                + "::deviceUUID).";
    }

    /**
     * {@code cuImport*} of a duplicate of the app's fd. CUDA takes an fd on a successful import, but a later
     * step (mapping) can still fail: with the duplicate, every failure leaves the app's fd untouched, and the
     * caller closes the app's fd only once the whole import worked (from then on the import owns it).
     */
    private long importDuplicate(int appFd, Supplier<String> what, IntToLongFunction importCall) {
        int driverFd;
        try {
            driverFd = Posix.dup(appFd);
        } catch (Posix.PosixException e) {
            throw new IllegalArgumentException("javaep: native_handle " + appFd + " is not an open file descriptor: "
                    + e.getMessage());
        }
        try {
            return refuseIfCudaFails(what, () -> importCall.applyAsLong(driverFd));
        } catch (RuntimeException e) {
            Posix.close(driverFd); // not taken by the driver
            throw e;
        }
    }

    @Override
    public void waitSemaphore(ImportedSemaphore semaphore, DeviceStream stream, long value) {
        onStream(semaphore, stream, (handle, cuStream) -> driver.waitExternalSemaphoreAsync(handle, value, cuStream));
    }

    @Override
    public void signalSemaphore(ImportedSemaphore semaphore, DeviceStream stream, long value) {
        onStream(semaphore, stream, (handle, cuStream) -> driver.signalExternalSemaphoreAsync(handle, value, cuStream));
    }

    /** A wait or signal of one semaphore on one CUstream. */
    @FunctionalInterface
    private interface SemaphoreCall {
        void on(long semaphore, long stream);
    }

    /** Queues {@code call} on {@code stream} with the device current, noting the stream for the semaphore's close. */
    private void onStream(ImportedSemaphore semaphore, DeviceStream stream, SemaphoreCall call) {
        CudaImportedSemaphore imported = semaphore(semaphore);
        long cuStream = cudaStream(stream);
        device.makeCurrent();
        imported.usedOn(cuStream);
        call.on(imported.handle, cuStream);
    }

    private static CudaImportedSemaphore semaphore(ImportedSemaphore semaphore) {
        if (!(semaphore instanceof CudaImportedSemaphore imported)) {
            throw new IllegalArgumentException("javaep: the semaphore was not imported by "
                    + JavaCudaExecutionProviderFactory.NAME);
        }
        if (imported.isClosed()) {
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

    /**
     * An imported resource, released once: a second close, or one after the context was lost (which took the
     * driver's objects with it; the app's handle is the app's to close), does nothing.
     */
    private abstract class Released {
        private final AtomicBoolean closed = new AtomicBoolean();

        public final void close() {
            if (!closed.compareAndSet(false, true) || device.isLost()) {
                return;
            }
            device.makeCurrent();
            release();
        }

        final boolean isClosed() {
            return closed.get();
        }

        /** Destroys the driver's objects; the device is current. */
        abstract void release();
    }

    /** The mapped range of one external allocation. */
    private final class CudaImportedMemory extends Released implements ImportedMemory {
        private final long external;
        private final long address;
        private final long byteSize;

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
        void release() {
            // Kernels and copies queued on a stream ORT or the app still holds may read or write the range: let them
            // finish before it is unmapped.
            finishQueuedWork();
            try {
                driver.memFree(address);
            } finally {
                driver.destroyExternalMemory(external);
            }
        }
    }

    /**
     * Waits for all work javaep queued that may use an imported range: every live stream javaep created
     * ({@link CudaStream#live}: ORT's and the app's OrtSyncStreams; another GPU's too, since a copy between GPUs is
     * queued on the stream ORT names, which may be the other device's), each with its own device current, and this
     * device's NULL stream, which a compiled node without a stream of ORT's launches on.
     *
     * <p>This used to be {@code cuCtxSynchronize}, which also waits for everything else in the device's primary context
     * (shared with the app's own CUDA work and other libraries), none of which javaep queued; issue 13 measured it as
     * part of an import's cost over the bare calls. A tensor's pointer that the app hands to CUDA work of its own is
     * the app's to finish before it releases, as with any memory it frees. A stream destroyed since it was listed was
     * synchronized by its own close ({@link CudaStream#close}); one whose context was lost has no work left.
     */
    private void finishQueuedWork() {
        CudaStream.synchronizeLive();
        device.makeCurrent();
        driver.streamSynchronize(0L);
    }

    /** One imported timeline semaphore, and the streams it was used on. */
    private final class CudaImportedSemaphore extends Released implements ImportedSemaphore {
        private final ExternalSemaphoreType type;
        private final long handle;
        private final Set<Long> streams = ConcurrentHashMap.newKeySet();

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
        void release() {
            for (long stream : streams) {
                if (CudaStream.isLive(stream)) {
                    driver.streamSynchronize(stream);
                }
            }
            driver.destroyExternalSemaphore(handle);
        }
    }
}
