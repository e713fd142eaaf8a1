package dev.javaep.validation;

import static dev.javaep.validation.ProxyChecksTest.callLong;
import static dev.javaep.validation.ProxyChecksTest.slot;
import static dev.javaep.validation.ProxyChecksTest.vendorStruct;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.bridge.UpcallGuard;
import dev.javaep.ort.CallbackSlot;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtExternalMemoryHandleStruct;
import dev.javaep.ort.OrtExternalResourceImporterImplStruct;
import dev.javaep.ort.OrtExternalSemaphoreHandleStruct;
import dev.javaep.ort.OrtInteropLayouts;
import dev.javaep.ort.OrtSyncStreamImplStruct;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.EnumMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The importer's proxy without ORT: a vendor importer made of Java upcalls (one that lies in CanImportMemory, one
 * that returns a NULL handle with a success; a semaphore waited on another library's stream), called through the proxy's stubs as ORT's interop API would call them.
 * The vendor's statuses are fakes read through a fake {@code OrtApi} (code and message), as the layer reads ORT's.
 */
@SuppressWarnings("restricted") // the layer stands between two C libraries: raw pointers and native calls are its work
class ImporterProxyTest {
    private static final Arena ARENA = Arena.global();
    private static final MethodHandles.Lookup LOOKUP = MethodHandles.lookup();
    private static final int FD = 3;          // ORT_EXTERNAL_MEMORY_HANDLE_TYPE_VK_MEMORY_OPAQUE_FD
    private static final int HOST = 4;        // ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION
    private static final long HANDLE_SIZE_AT = OrtInteropLayouts.offset(OrtInteropLayouts.MEMORY_HANDLE, "descriptor")
            + OrtInteropLayouts.offset(OrtInteropLayouts.MEMORY_DESCRIPTOR, "size_bytes");
    /** A status with ORT_NOT_IMPLEMENTED: {int code; const char* message}, read by the fake OrtApi below. */
    private static final MemorySegment NOT_IMPLEMENTED = status(OrtErrorCode.NOT_IMPLEMENTED, "fds are not supported here");
    private static final AtomicInteger HANDLE_RELEASES = new AtomicInteger();
    private static final AtomicInteger TENSORS = new AtomicInteger();
    private static final AtomicInteger SEMAPHORE_CALLS = new AtomicInteger();
    private static volatile boolean nullHandleOnSuccess;

    @BeforeEach
    void layerSettings() {
        Violations.clear();
        Settings.current = new Settings(false, Long.MAX_VALUE, null, new StatusReader(new OrtApi(fakeOrtApi(), OrtApi.COMPILED_API_VERSION)), new Stubs(),
                OrtApi.COMPILED_API_VERSION, null, null);
        nullHandleOnSuccess = false;
        HANDLE_RELEASES.set(0);
        TENSORS.set(0);
        SEMAPHORE_CALLS.set(0);
    }

    @Test
    void canImportAnswersContradictedByTheImportAreLies() throws Throwable {
        Proxy importer = importerProxy();
        assertTrue(canImportMemory(importer, FD));
        assertEquals(NOT_IMPLEMENTED.address(), importMemory(importer, descriptor(FD, 4096, 0), ARENA.allocate(8)),
                "the vendor's status reaches ORT unchanged");
        assertEquals(Map.of(Violation.CAN_IMPORT_LIE, 1L), Violations.counts(), Violations.recent().toString());
        assertTrue(Violations.recent().getFirst().detail().startsWith("CanImportMemory(3) answered true"),
                Violations.recent().toString());

        assertEquals(false, canImportMemory(importer, HOST));
        MemorySegment out = ARENA.allocate(8);
        assertEquals(0L, importMemory(importer, descriptor(HOST, 4096, 0), out));
        assertEquals(2L, Violations.counts().get(Violation.CAN_IMPORT_LIE), "false for a type it then imports");
        long handle = out.get(JAVA_LONG, 0);
        Proxy proxy = Proxy.find(ObjectKind.MEMORY_HANDLE, handle);
        assertTrue(proxy != null && proxy.vendor != handle, "ORT gets the proxy of the handle");
        assertEquals(4096L, Proxy.MEMORY.get(JAVA_LONG, handle + HANDLE_SIZE_AT), "the handle's descriptor is copied");
        callLong(proxy, OrtExternalMemoryHandleStruct.Release);
    }

    @Test
    void aDoubleReleaseOfAMemoryHandleIsNotForwarded() throws Throwable {
        Proxy importer = importerProxy();
        MemorySegment out = ARENA.allocate(8);
        assertEquals(0L, importMemory(importer, descriptor(HOST, 64, 0), out));
        Proxy handle = Proxy.find(ObjectKind.MEMORY_HANDLE, out.get(JAVA_LONG, 0));
        callLong(handle, OrtExternalMemoryHandleStruct.Release);
        callLong(handle, OrtExternalMemoryHandleStruct.Release);                              // handle->Release twice
        callLong(importer, OrtExternalResourceImporterImplStruct.ReleaseMemory, handle.address); // and through the importer
        assertEquals(1, HANDLE_RELEASES.get(), "the vendor's handle is released once");
        assertEquals(Map.of(Violation.DOUBLE_RELEASE, 2L), Violations.counts(), Violations.recent().toString());
        assertEquals("OrtExternalMemoryHandle::Release", Violations.recent().getFirst().callback());

        // Refused: UpcallGuard answers ORT with a status (none here, where there is no ORT to make one).
        callLong(importer, OrtExternalResourceImporterImplStruct.CreateTensorFromMemory, handle.address,
                descriptor(HOST, 64, 0).address(), ARENA.allocate(8).address());
        callLong(importer, OrtExternalResourceImporterImplStruct.CreateTensorFromMemory, 0x1234, 0, 0);
        assertEquals(0, TENSORS.get(), "neither reaches the vendor");
        assertEquals(1L, Violations.counts().get(Violation.USE_AFTER_RELEASE));
        assertEquals(1L, Violations.counts().get(Violation.FOREIGN_HANDLE));
    }

    @Test
    void aNullHandleWithASuccessIsReported() throws Throwable {
        Proxy importer = importerProxy();
        nullHandleOnSuccess = true;
        MemorySegment out = ARENA.allocate(8);
        assertEquals(0L, importMemory(importer, descriptor(HOST, 64, 0), out));
        assertEquals(0L, out.get(JAVA_LONG, 0));
        assertEquals(Map.of(Violation.OUT_PARAMETER_UNSET, 1L), Violations.counts(), Violations.recent().toString());
        assertEquals("OrtExternalResourceImporterImpl::ImportMemory", Violations.recent().getFirst().callback());
    }

    @Test
    void badDescriptorsAreReportedAndForwarded() throws Throwable {
        Proxy importer = importerProxy();
        MemorySegment out = ARENA.allocate(8);
        importMemory(importer, descriptor(HOST, 0, 0), out);       // size 0
        MemorySegment badVersion = descriptor(HOST, 64, 0);
        badVersion.set(JAVA_INT, 0, 0);
        importMemory(importer, badVersion, out);                   // version not set
        importMemory(importer, descriptor(HOST, 64, 64), out);     // offset not below size
        importMemory(importer, descriptor(77, 64, 0), out);        // no such handle type
        assertEquals(Map.of(Violation.BAD_DESCRIPTOR, 4L), Violations.counts(), Violations.recent().toString());
        assertTrue(Violation.BAD_DESCRIPTOR.isWarning(), "the caller's mistake: the vendor is to refuse it");
    }

    @Test
    void handlesMayOutliveTheirImporterButNotTheirFactory() throws Throwable {
        Proxy factory = ProxyChecksTest.factoryProxy();
        Proxy importer = Proxy.create(ObjectKind.IMPORTER, importerProxy().vendor, factory, Settings.current.stubs(),
                OrtApi.COMPILED_API_VERSION);
        MemorySegment out = ARENA.allocate(8);
        importMemory(importer, descriptor(HOST, 64, 0), out);
        Proxy released = Proxy.find(ObjectKind.MEMORY_HANDLE, out.get(JAVA_LONG, 0));
        importMemory(importer, descriptor(HOST, 64, 0), out);
        Proxy kept = Proxy.find(ObjectKind.MEMORY_HANDLE, out.get(JAVA_LONG, 0));

        callLong(importer, OrtExternalResourceImporterImplStruct.Release);
        assertEquals(Map.of(Violation.OUTLIVES_IMPORTER, 1L), Violations.counts(), Violations.recent().toString());
        callLong(released, OrtExternalMemoryHandleStruct.Release);
        assertEquals(1, HANDLE_RELEASES.get(), "a handle's release after its importer's is forwarded");
        assertEquals(Set.of(kept), factory.release(), "the handle never released is the factory's leak");
    }

    @Test
    void waitOnAnotherLibrarysStreamOrAReleasedSemaphoreIsReported() throws Throwable {
        Proxy factory = ProxyChecksTest.factoryProxy();
        Proxy importer = Proxy.create(ObjectKind.IMPORTER, importerProxy().vendor, factory, Settings.current.stubs(),
                OrtApi.COMPILED_API_VERSION);
        Proxy ownStream = Proxy.create(ObjectKind.SYNC_STREAM, ARENA.allocate(OrtSyncStreamImplStruct.SIZE, 8).address(),
                factory, Settings.current.stubs(), OrtApi.COMPILED_API_VERSION);
        Violations.clear(); // the bare stream's NULL slots
        MemorySegment out = ARENA.allocate(8);
        MemorySegment descriptor = ARENA.allocate(OrtInteropLayouts.SEMAPHORE_DESCRIPTOR);
        descriptor.set(JAVA_INT, 0, 24);
        descriptor.set(JAVA_INT, 4, 2); // ORT_EXTERNAL_SEMAPHORE_VK_TIMELINE_SEMAPHORE_OPAQUE_FD
        assertEquals(0L, callLong(importer, OrtExternalResourceImporterImplStruct.ImportSemaphore, descriptor.address(),
                out.address()));
        long semaphore = out.get(JAVA_LONG, 0);
        // Here the OrtSyncStream is its own impl: ORT's SyncStream_GetImpl answers what it was given.
        ApiInterception.ortSyncStreamGetImpl = MethodHandles.identity(MemorySegment.class);
        try {
            callLong(importer, OrtExternalResourceImporterImplStruct.WaitSemaphore, semaphore, ownStream.address, 1);
            assertEquals(Map.of(), Violations.counts(), Violations.recent().toString());
            callLong(importer, OrtExternalResourceImporterImplStruct.SignalSemaphore, semaphore, 0x5000, 2);
            assertEquals(Map.of(Violation.FOREIGN_STREAM, 1L), Violations.counts(), Violations.recent().toString());
            assertEquals(2, SEMAPHORE_CALLS.get(), "forwarded all the same: the vendor is to refuse it");

            callLong(Proxy.find(ObjectKind.SEMAPHORE_HANDLE, semaphore), OrtExternalSemaphoreHandleStruct.Release);
            callLong(importer, OrtExternalResourceImporterImplStruct.WaitSemaphore, semaphore, ownStream.address, 3);
            assertEquals(1L, Violations.counts().get(Violation.USE_AFTER_RELEASE), "a released semaphore");
            assertEquals(2, SEMAPHORE_CALLS.get(), "is not forwarded");
        } finally {
            ApiInterception.ortSyncStreamGetImpl = null;
        }
    }

    // ---- the vendor ----------------------------------------------------------------------------------

    private static Proxy importerProxy() {
        Map<OrtExternalResourceImporterImplStruct, MemorySegment> functions =
                new EnumMap<>(OrtExternalResourceImporterImplStruct.class);
        for (OrtExternalResourceImporterImplStruct slot : OrtExternalResourceImporterImplStruct.values()) {
            functions.put(slot, upcall(switch (slot) {
                case CanImportMemory, CanImportSemaphore -> "canImport";
                case ImportMemory -> "importMemory";
                case ImportSemaphore -> "importSemaphore";
                case CreateTensorFromMemory -> "createTensor";
                case ReleaseMemory -> "releaseMemory";
                case Release -> "release";
                default -> "semaphore" + slot.descriptor().argumentLayouts().size();
            }, slot));
        }
        MemorySegment vendor = vendorStruct(OrtExternalResourceImporterImplStruct.SIZE, 24, functions);
        return Proxy.create(ObjectKind.IMPORTER, vendor.address(), null, Settings.current.stubs(), OrtApi.COMPILED_API_VERSION);
    }

    private static MemorySegment upcall(String method, CallbackSlot slot) {
        return ProxyChecksTest.stub(LOOKUP, method, UpcallGuard.addressesAsLongs(slot.descriptor()));
    }

    /** The lie: fds are claimed and refused; host allocations are denied and taken. */
    private static boolean canImport(long self, int type) {
        return type == FD;
    }

    private static long importMemory(long self, long descriptor, long out) {
        if (Proxy.MEMORY.get(JAVA_INT, descriptor + 4) == FD) {
            return NOT_IMPLEMENTED.address();
        }
        MemorySegment handle = nullHandleOnSuccess ? MemorySegment.NULL : vendorStruct(OrtExternalMemoryHandleStruct.SIZE,
                24, Map.of(OrtExternalMemoryHandleStruct.Release, upcall("releaseHandle", OrtExternalMemoryHandleStruct.Release)));
        if (!nullHandleOnSuccess) {
            MemorySegment.copy(MemorySegment.ofAddress(descriptor).reinterpret(32), 0, handle,
                    OrtInteropLayouts.offset(OrtInteropLayouts.MEMORY_HANDLE, "descriptor"), 32);
        }
        Proxy.MEMORY.set(JAVA_LONG, out, handle.address());
        return 0L;
    }

    private static void releaseHandle(long handle) {
        HANDLE_RELEASES.incrementAndGet();
    }

    private static void releaseMemory(long self, long handle) {
        HANDLE_RELEASES.incrementAndGet();
    }

    private static long createTensor(long self, long handle, long descriptor, long out) {
        TENSORS.incrementAndGet();
        return 0L;
    }

    private static void release(long self) {
    }

    private static long importSemaphore(long self, long descriptor, long out) {
        Proxy.MEMORY.set(JAVA_LONG, out, vendorStruct(OrtExternalSemaphoreHandleStruct.SIZE, 24, Map.of(
                OrtExternalSemaphoreHandleStruct.Release, upcall("releaseHandle", OrtExternalSemaphoreHandleStruct.Release)))
                .address());
        return 0L;
    }

    private static long semaphore4(long self, long handle, long stream, long value) {
        SEMAPHORE_CALLS.incrementAndGet();
        return 0L;
    }

    private static void semaphore2(long self, long handle) {
    }

    // ---- ORT's side ----------------------------------------------------------------------------------

    private static boolean canImportMemory(Proxy importer, int type) throws Throwable {
        MethodHandle call = Linker.nativeLinker().downcallHandle(MemorySegment.ofAddress(slot(importer,
                OrtExternalResourceImporterImplStruct.CanImportMemory)), UpcallGuard.addressesAsLongs(
                OrtExternalResourceImporterImplStruct.CanImportMemory.descriptor()));
        return (boolean) call.invokeExact(importer.address, type);
    }

    private static long importMemory(Proxy importer, MemorySegment descriptor, MemorySegment out) throws Throwable {
        return callLong(importer, OrtExternalResourceImporterImplStruct.ImportMemory, descriptor.address(), out.address());
    }

    private static MemorySegment descriptor(int type, long size, long offset) {
        MemorySegment d = ARENA.allocate(OrtInteropLayouts.MEMORY_DESCRIPTOR);
        d.set(JAVA_INT, 0, 24);
        d.set(JAVA_INT, 4, type);
        d.set(JAVA_LONG, OrtInteropLayouts.offset(OrtInteropLayouts.MEMORY_DESCRIPTOR, "size_bytes"), size);
        d.set(JAVA_LONG, OrtInteropLayouts.offset(OrtInteropLayouts.MEMORY_DESCRIPTOR, "offset_bytes"), offset);
        return d;
    }

    private static MemorySegment status(OrtErrorCode code, String message) {
        MemorySegment status = ARENA.allocate(16, 8);
        status.set(JAVA_INT, 0, code.value());
        status.set(JAVA_LONG, 8, ARENA.allocateFrom(message).address());
        return status;
    }

    /** An OrtApi table with only GetErrorCode and GetErrorMessage, over the fake statuses. */
    private static MemorySegment fakeOrtApi() {
        MemorySegment api = ARENA.allocate(Math.max(OrtApiSlot.GetErrorCode.byteOffset(),
                OrtApiSlot.GetErrorMessage.byteOffset()) + 8, 8);
        api.set(JAVA_LONG, OrtApiSlot.GetErrorCode.byteOffset(), ProxyChecksTest.stub(LOOKUP, "errorCode",
                FunctionDescriptor.of(JAVA_INT, JAVA_LONG)).address());
        api.set(JAVA_LONG, OrtApiSlot.GetErrorMessage.byteOffset(), ProxyChecksTest.stub(LOOKUP, "errorMessage",
                FunctionDescriptor.of(JAVA_LONG, JAVA_LONG)).address());
        return api;
    }

    private static int errorCode(long status) {
        return Proxy.MEMORY.get(JAVA_INT, status);
    }

    private static long errorMessage(long status) {
        return Proxy.MEMORY.get(JAVA_LONG, status + 8);
    }
}
