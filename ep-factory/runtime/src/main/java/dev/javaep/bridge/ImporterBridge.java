package dev.javaep.bridge;

import dev.javaep.bridge.events.ExternalMemoryImportEvent;
import dev.javaep.bridge.events.ExternalSemaphoreEvent;
import dev.javaep.ort.OrtExternalResourceImporterImplStruct;
import dev.javaep.ort.OrtFeature;
import dev.javaep.spi.DeviceStream;
import dev.javaep.spi.EpLog;
import dev.javaep.spi.ExternalMemoryDescriptor;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalResourceImporter;
import dev.javaep.spi.ExternalSemaphoreDescriptor;
import dev.javaep.spi.ExternalSemaphoreType;
import dev.javaep.spi.FlightRecorder;
import dev.javaep.spi.ImportedMemory;
import dev.javaep.spi.ImportedSemaphore;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.util.List;

/**
 * An {@code OrtExternalResourceImporterImpl} in front of one {@link ExternalResourceImporter}, for one
 * {@code OrtEpDevice}.
 *
 * <p>Lifetimes: the app's importer, every memory and semaphore handle, and every tensor over imported
 * memory each hold a reference. Releasing in any order is safe: an import is freed when its handle
 * and its last tensor are gone, and the importer when its last import is; nothing is freed twice, and
 * a stale pointer is refused with ORT_INVALID_ARGUMENT (or logged, where the callback returns void).
 */
final class ImporterBridge extends StructBridge {
    private static final CallbackStruct<OrtExternalResourceImporterImplStruct, ImporterBridge> STRUCT =
            new CallbackStruct<>(OrtExternalResourceImporterImplStruct.class, MethodHandles.lookup());

    private final ExternalResourceImporter importer;
    private final String epName;
    private final MemorySegment epDevice;
    private final MemorySegment tensorMemoryInfo;
    private final References references = new References(this::close);
    private final InteropDescriptors.Importable<ExternalMemoryType> memoryTypes;
    private final InteropDescriptors.Importable<ExternalSemaphoreType> semaphoreTypes;

    private ImporterBridge(ExternalResourceImporter importer, OrtRuntime runtime, String epName, MemorySegment epDevice,
                           MemorySegment tensorMemoryInfo) {
        super(STRUCT, runtime);
        this.importer = importer;
        this.epName = epName;
        this.epDevice = epDevice;
        this.tensorMemoryInfo = tensorMemoryInfo;
        this.memoryTypes = new InteropDescriptors.Importable<>(epName, this::canImport,
                List.of(ExternalMemoryType.values()));
        this.semaphoreTypes = new InteropDescriptors.Importable<>(epName, importer::canImportSemaphore,
                List.of(ExternalSemaphoreType.values()));
        STRUCT.register(this);
    }

    /**
     * @param tensorMemoryInfo the {@code OrtMemoryInfo} of tensors over imported memory (the EP device's
     *                         device memory, or CPU memory for a host EP); must outlive the importer
     */
    static MemorySegment create(ExternalResourceImporter importer, OrtRuntime runtime, String epName,
                                MemorySegment epDevice, MemorySegment tensorMemoryInfo) {
        return new ImporterBridge(importer, runtime, epName, epDevice, tensorMemoryInfo).struct;
    }

    OrtRuntime runtime() {
        return runtime;
    }

    MemorySegment epDevice() {
        return epDevice;
    }

    MemorySegment tensorMemoryInfo() {
        return tensorMemoryInfo;
    }

    String epName() {
        return epName;
    }

    /** Taken by each import; the importer closes when the app and every import have let go. */
    References references() {
        return references;
    }

    /** A value an app built against a newer ORT could pass, but this runtime does not define, is refused. */
    private boolean canImport(ExternalMemoryType type) {
        return runtime.offers(OrtFeature.forExternalMemoryHandleType(type.ortValue())) && importer.canImportMemory(type);
    }

    private void close() {
        STRUCT.remove(struct);
        try {
            importer.close();
        } finally {
            arena.close();
        }
    }

    private static MemorySegment clearOut(MemorySegment out, String what) {
        if (out.equals(MemorySegment.NULL)) {
            throw new IllegalArgumentException("javaep: the " + what + " out-pointer is NULL");
        }
        MemorySegment slot = out.reinterpret(ValueLayout.ADDRESS.byteSize());
        slot.set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        return slot;
    }

    private DeviceStream stream(MemorySegment stream) {
        if (stream.equals(MemorySegment.NULL)) {
            throw new IllegalArgumentException("javaep: the OrtSyncStream is NULL; pass the stream the session runs on"
                    + " (CreateSyncStreamForEpDevice for this EP device, then RunOptionsSetSyncStream)");
        }
        MemorySegment impl = runtime.epApi().syncStreamImpl(stream);
        DeviceStream deviceStream = SyncStreamBridge.deviceStreamOrNull(impl);
        if (deviceStream == null) { // no orElseThrow: its supplier would capture this on every frame's Wait/Signal
            throw new IllegalArgumentException("javaep: the OrtSyncStream was not created by " + epName
                    + "; create it with CreateSyncStreamForEpDevice on the importer's EP device");
        }
        return deviceStream;
    }

    private ImportedSemaphoreBridge semaphore(MemorySegment handle) {
        return importedHere(handle, ImportedSemaphoreBridge.find(handle), "OrtExternalSemaphoreHandle", "semaphore",
                "import it with this device's importer");
    }

    /**
     * The import at {@code handle} ({@code found}: what its bridge class registered there, or null), which this
     * importer's EP device must have made.
     */
    private <H extends ImportedHandleBridge> H importedHere(MemorySegment handle, H found, String struct, String what,
                                                           String advice) {
        if (handle.equals(MemorySegment.NULL)) {
            throw new IllegalArgumentException("javaep: the " + struct + " is NULL");
        }
        if (found == null) {
            throw new IllegalArgumentException("javaep: the " + struct + " was not imported by javaep, or was already released");
        }
        if (!found.importer.epDevice.equals(epDevice)) {
            throw new IllegalArgumentException("javaep: the " + what + " was imported for another EP device ("
                    + found.importer.epName + "); " + advice);
        }
        return found;
    }

    // ---- upcalls (behind UpcallGuard) ------------------------------------------------------------

    static boolean canImportMemory(MemorySegment self, int type) {
        ImporterBridge bridge = STRUCT.get(self);
        return ExternalMemoryType.fromOrt(type).map(bridge::canImport).orElse(false);
    }

    static boolean canImportSemaphore(MemorySegment self, int type) {
        ImporterBridge bridge = STRUCT.get(self);
        return ExternalSemaphoreType.fromOrt(type).map(bridge.importer::canImportSemaphore).orElse(false);
    }

    static MemorySegment importMemory(MemorySegment self, MemorySegment descriptor, MemorySegment handleOut) {
        long start = BridgeStatistics.start();
        ImporterBridge bridge = STRUCT.get(self);
        MemorySegment out = clearOut(handleOut, "OrtExternalMemoryHandle");
        ExternalMemoryDescriptor checked = InteropDescriptors.memory(descriptor, bridge.memoryTypes);
        ExternalMemoryImportEvent event = FlightRecorder.AVAILABLE ? ExternalMemoryImportEvent.beginIfRecorded() : null;
        long importerStart = BridgeStatistics.start();
        ImportedMemory memory = bridge.importer.importMemory(checked);
        BridgeStatistics.record(BridgeStatistics.Callback.IMPORTER, importerStart);
        out.set(ValueLayout.ADDRESS, 0, ImportedMemoryBridge.create(bridge, memory, checked,
                descriptor.reinterpret(4).get(ValueLayout.JAVA_INT, 0)));
        if (event != null) {
            ExternalMemoryImportEvent.commit(event, bridge.epName, checked.type().name(), memory.byteSize());
        }
        BridgeStatistics.record(BridgeStatistics.Callback.IMPORT, start);
        return MemorySegment.NULL;
    }

    /** Never called by ORT (apps release through {@code handle->Release}); does the same for an EP-aware caller. */
    static void releaseMemory(MemorySegment self, MemorySegment handle) {
        ImportedMemoryBridge.release(handle);
    }

    static MemorySegment createTensorFromMemory(MemorySegment self, MemorySegment handle, MemorySegment descriptor,
                                                MemorySegment tensorOut) {
        long start = BridgeStatistics.start();
        ImporterBridge bridge = STRUCT.get(self);
        MemorySegment out = clearOut(tensorOut, "OrtValue");
        ImportedMemoryBridge memory = bridge.importedHere(handle, ImportedMemoryBridge.find(handle),
                "OrtExternalMemoryHandle", "memory", "its tensors must be made by that device's importer");
        out.set(ValueLayout.ADDRESS, 0, memory.createTensor(InteropDescriptors.tensor(descriptor, memory.byteSize())));
        BridgeStatistics.record(BridgeStatistics.Callback.CREATE_TENSOR, start);
        return MemorySegment.NULL;
    }

    static MemorySegment importSemaphore(MemorySegment self, MemorySegment descriptor, MemorySegment handleOut) {
        ImporterBridge bridge = STRUCT.get(self);
        MemorySegment out = clearOut(handleOut, "OrtExternalSemaphoreHandle");
        ExternalSemaphoreDescriptor checked = InteropDescriptors.semaphore(descriptor, bridge.semaphoreTypes);
        ImportedSemaphore semaphore = bridge.importer.importSemaphore(checked);
        out.set(ValueLayout.ADDRESS, 0, ImportedSemaphoreBridge.create(bridge, semaphore, checked,
                descriptor.reinterpret(4).get(ValueLayout.JAVA_INT, 0)));
        return MemorySegment.NULL;
    }

    static void releaseSemaphore(MemorySegment self, MemorySegment handle) {
        ImportedSemaphoreBridge.release(handle);
    }

    static MemorySegment waitSemaphore(MemorySegment self, MemorySegment handle, MemorySegment stream, long value) {
        return onStream(self, handle, stream, value, SemaphoreOperation.WAIT);
    }

    static MemorySegment signalSemaphore(MemorySegment self, MemorySegment handle, MemorySegment stream, long value) {
        return onStream(self, handle, stream, value, SemaphoreOperation.SIGNAL);
    }

    /**
     * {@code waitSemaphore} or {@code signalSemaphore} of the importer, with the name its JFR event gives it: a
     * constant, so a frame's Wait/SignalSemaphore passes no function object and builds no name.
     */
    private enum SemaphoreOperation {
        WAIT("wait"),
        SIGNAL("signal");

        final String eventName;

        SemaphoreOperation(String eventName) {
            this.eventName = eventName;
        }

        void apply(ExternalResourceImporter importer, ImportedSemaphore semaphore, DeviceStream stream, long value) {
            switch (this) {
                case WAIT -> importer.waitSemaphore(semaphore, stream, value);
                case SIGNAL -> importer.signalSemaphore(semaphore, stream, value);
            }
        }
    }

    /** The one path of Wait/SignalSemaphore: find the semaphore and stream, queue the operation, count and record it. */
    private static MemorySegment onStream(MemorySegment self, MemorySegment handle, MemorySegment stream, long value,
                                          SemaphoreOperation operation) {
        long start = BridgeStatistics.start();
        ExternalSemaphoreEvent event = FlightRecorder.AVAILABLE ? ExternalSemaphoreEvent.beginIfRecorded() : null;
        ImporterBridge bridge = STRUCT.get(self);
        ImportedSemaphore semaphore = bridge.semaphore(handle).semaphore();
        DeviceStream deviceStream = bridge.stream(stream);
        operation.apply(bridge.importer, semaphore, deviceStream, value);
        if (event != null) {
            ExternalSemaphoreEvent.commit(event, bridge.epName, operation.eventName, semaphore.type().name(), value, deviceStream.handle());
        }
        BridgeStatistics.record(BridgeStatistics.Callback.SEMAPHORE, start);
        return MemorySegment.NULL;
    }

    /** The app released its importer (ORT's wrapper calls this from its destructor). */
    static void release(MemorySegment self) {
        ImporterBridge bridge = STRUCT.find(self);
        if (bridge == null) {
            EpLog.warning("javaep: OrtExternalResourceImporterImpl::Release got an unknown importer");
            return;
        }
        bridge.references.releaseOwner();
    }
}
