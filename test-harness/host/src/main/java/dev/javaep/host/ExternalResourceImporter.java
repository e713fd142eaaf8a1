package dev.javaep.host;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.ort.FunctionTable;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.ort.OrtInteropApiSlot;
import dev.javaep.ort.OrtInteropLayouts;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalSemaphoreType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.Arrays;
import java.util.Objects;
import java.util.Optional;

/**
 * An {@code OrtExternalResourceImporter} ({@link OrtEnvironment#createExternalResourceImporter}): what
 * an app uses to hand ORT memory and semaphores it allocated with another API (Vulkan, CUDA, D3D12).
 * The pointer is ORT's wrapper around the EP's importer, not the EP's own object.
 *
 * <p>Owns the {@link ExternalMemory} and {@link ExternalSemaphore} handles imported through it: closing
 * the importer closes those still open, newest first, before releasing it. Tensors made by
 * {@link #createTensor} are not tracked: close them before the memory they view.
 *
 * <p>Every call is one C call. Besides the typed forms there are raw ones (descriptor records with any
 * version or enum value, null for a NULL pointer), so tests can hand ORT and the EP the inputs a
 * careless app would; ORT's and the EP's answers surface as {@link OrtException}s.
 */
public final class ExternalResourceImporter implements AutoCloseable {
    private final OrtApi api;
    private final FunctionTable interop;
    private final EpDevice device;
    private final Dependents imported = new Dependents("the importer");
    private MemorySegment importer;

    private ExternalResourceImporter(OrtHost host, EpDevice device, MemorySegment importer) {
        this.api = host.api();
        this.interop = host.interop();
        this.device = device;
        this.importer = importer;
    }

    /**
     * {@code CreateExternalResourceImporterForDevice}; empty when ORT answers success with a NULL importer
     * (the EP, or its factory's API version, offers none).
     *
     * @param device null passes a NULL device (ORT answers INVALID_ARGUMENT)
     */
    static Optional<ExternalResourceImporter> create(OrtHost host, EpDevice device) {
        FunctionTable interop = host.interop();
        MemorySegment epDevice = device == null ? MemorySegment.NULL : device.handle();
        MemorySegment importer = OrtCalls.pointerOut(host.api(), interop, OrtInteropApiSlot.CreateExternalResourceImporterForDevice,
                epDevice);
        return importer.equals(MemorySegment.NULL) ? Optional.empty() : Optional.of(new ExternalResourceImporter(host, device, importer));
    }

    /** The EP device this importer was created for. */
    public EpDevice device() {
        return device;
    }

    /** The {@code OrtExternalResourceImporter*} (ORT's wrapper). */
    public MemorySegment handle() {
        return OrtCalls.live(importer, "ExternalResourceImporter");
    }

    // ---- memory ---------------------------------------------------------------------------------

    /** {@code CanImportMemory}. */
    public boolean canImportMemory(ExternalMemoryType type) {
        return canImportMemory(type.ortValue());
    }

    /** {@code CanImportMemory} with any {@code OrtExternalMemoryHandleType} value, known or not. */
    public boolean canImportMemory(int rawOrtValue) {
        return canImport(OrtInteropApiSlot.CanImportMemory, rawOrtValue);
    }

    /**
     * {@code ImportMemory} of a whole allocation (or the part from {@code offsetBytes} on).
     *
     * @param nativeHandle what the type says: an fd for the OPAQUE_FD types (whether the importer takes
     *     ownership of it is the EP's contract), a HANDLE for the Win32 types
     * @param sizeBytes the size of the whole allocation, as the allocating API reports it
     */
    public ExternalMemory importMemory(ExternalMemoryType type, long nativeHandle, long sizeBytes, long offsetBytes) {
        return importMemory(MemoryDescriptor.of(type, nativeHandle, sizeBytes, offsetBytes));
    }

    /** {@code ImportMemory} with a descriptor as given; null passes a NULL descriptor pointer. */
    public ExternalMemory importMemory(MemoryDescriptor descriptor) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment desc = descriptor == null ? MemorySegment.NULL : descriptor.write(arena);
            api.check(interop.call(OrtInteropApiSlot.ImportMemory, handle(), desc, out));
            return imported.remember(new ExternalMemory(interop, imported(out, OrtInteropApiSlot.ImportMemory), imported::forget));
        }
    }

    /**
     * {@code CreateTensorFromMemory}: an {@code OrtValue} the EP made over imported memory. The tensor does
     * not own the bytes: close it before {@code memory}.
     *
     * @param memory null passes a NULL memory handle
     * @param descriptor null passes a NULL descriptor pointer
     */
    public OrtTensor createTensor(ExternalMemory memory, TensorDescriptor descriptor) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment memoryHandle = memory == null ? MemorySegment.NULL : memory.handle();
            MemorySegment desc = descriptor == null ? MemorySegment.NULL : descriptor.write(arena);
            api.check(interop.call(OrtInteropApiSlot.CreateTensorFromMemory, handle(), memoryHandle, desc, out));
            return OrtTensor.adopt(api, out.get(ADDRESS, 0));
        }
    }

    // ---- semaphores -----------------------------------------------------------------------------

    /** {@code CanImportSemaphore}. */
    public boolean canImportSemaphore(ExternalSemaphoreType type) {
        return canImportSemaphore(type.ortValue());
    }

    /** {@code CanImportSemaphore} with any {@code OrtExternalSemaphoreType} value, known or not. */
    public boolean canImportSemaphore(int rawOrtValue) {
        return canImport(OrtInteropApiSlot.CanImportSemaphore, rawOrtValue);
    }

    /** {@code ImportSemaphore}. */
    public ExternalSemaphore importSemaphore(ExternalSemaphoreType type, long nativeHandle) {
        return importSemaphore(SemaphoreDescriptor.of(type, nativeHandle));
    }

    /** {@code ImportSemaphore} with a descriptor as given; null passes a NULL descriptor pointer. */
    public ExternalSemaphore importSemaphore(SemaphoreDescriptor descriptor) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            MemorySegment desc = descriptor == null ? MemorySegment.NULL : descriptor.write(arena);
            api.check(interop.call(OrtInteropApiSlot.ImportSemaphore, handle(), desc, out));
            return imported.remember(new ExternalSemaphore(interop, imported(out, OrtInteropApiSlot.ImportSemaphore),
                    imported::forget));
        }
    }

    /**
     * {@code WaitSemaphore}: work queued on {@code stream} after this waits until the semaphore reaches
     * {@code value}. Returns once the wait is queued, not when it is satisfied.
     *
     * @param semaphore null passes NULL (ORT answers INVALID_ARGUMENT)
     * @param stream null passes NULL (ORT answers INVALID_ARGUMENT)
     */
    public void waitSemaphore(ExternalSemaphore semaphore, SyncStream stream, long value) {
        semaphoreOnStream(OrtInteropApiSlot.WaitSemaphore, semaphore, stream, value);
    }

    /**
     * {@code SignalSemaphore}: the semaphore reaches {@code value} once the work queued on {@code stream}
     * before this is done.
     *
     * @param semaphore null passes NULL (ORT answers INVALID_ARGUMENT)
     * @param stream null passes NULL (ORT answers INVALID_ARGUMENT)
     */
    public void signalSemaphore(ExternalSemaphore semaphore, SyncStream stream, long value) {
        semaphoreOnStream(OrtInteropApiSlot.SignalSemaphore, semaphore, stream, value);
    }

    private void semaphoreOnStream(OrtInteropApiSlot slot, ExternalSemaphore semaphore, SyncStream stream, long value) {
        MemorySegment semaphoreHandle = semaphore == null ? MemorySegment.NULL : semaphore.handle();
        MemorySegment ortStream = stream == null ? MemorySegment.NULL : stream.ortStream();
        try {
            api.check((MemorySegment) interop.handle(slot).invokeExact(handle(), semaphoreHandle, ortStream, value));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    private boolean canImport(OrtInteropApiSlot slot, int rawOrtValue) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment supported = arena.allocate(JAVA_BOOLEAN);
            api.check((MemorySegment) interop.handle(slot).invokeExact(handle(), rawOrtValue, supported));
            return supported.get(JAVA_BOOLEAN, 0);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** The handle an import call wrote; ORT answers FAIL itself when an EP returns none, so NULL here is a runtime bug. */
    private static MemorySegment imported(MemorySegment out, OrtInteropApiSlot slot) {
        MemorySegment handle = out.get(ADDRESS, 0);
        if (handle.equals(MemorySegment.NULL)) {
            throw new OrtException(OrtErrorCode.FAIL, "javaep: OrtInteropApi::" + slot.name()
                    + " returned success but no handle");
        }
        return handle;
    }

    /**
     * Closes the memory and semaphore handles imported through this importer that are still open (newest
     * first), then {@code ReleaseExternalResourceImporter}: ORT deletes its wrapper, which releases the
     * EP's importer. Idempotent.
     */
    @Override
    public void close() {
        if (importer == null) {
            return;
        }
        imported.closeNewestFirst();
        releaseImporterOnly();
    }

    /**
     * {@code ReleaseExternalResourceImporter} now, leaving the handles imported through it open (they
     * are closed on their own). javaep's EPs keep an importer alive until its last import is released;
     * ORT does not promise that of other EPs. Idempotent.
     */
    public void releaseImporterOnly() {
        if (importer == null) {
            return;
        }
        imported.clear();
        interop.callVoid(OrtInteropApiSlot.ReleaseExternalResourceImporter, importer);
        importer = null;
    }

    @Override
    public String toString() {
        return "ExternalResourceImporter[" + (device == null ? "?" : device.epName()) + (importer == null ? ", closed]" : "]");
    }

    // ---- descriptors ----------------------------------------------------------------------------

    /**
     * A zeroed {@code layout} in {@code arena} with the fields both handle descriptors start with filled in:
     * {@code version}, the handle's type (named {@code typeField} in that struct) and {@code native_handle}.
     */
    private static MemorySegment writeHandleHead(Arena arena, StructLayout layout, int version, String typeField, int type,
                                                 long nativeHandle) {
        MemorySegment struct = arena.allocate(layout);
        struct.set(JAVA_INT, OrtInteropLayouts.offset(layout, "version"), version);
        struct.set(JAVA_INT, OrtInteropLayouts.offset(layout, typeField), type);
        struct.set(ADDRESS, OrtInteropLayouts.offset(layout, "native_handle"), MemorySegment.ofAddress(nativeHandle));
        return struct;
    }

    /**
     * {@code OrtExternalMemoryDescriptor}, field for field. {@link #of} fills a valid one; the canonical
     * constructor takes anything (an unknown version or handle type), for tests of how ORT and EPs refuse.
     *
     * @param handleType an {@code OrtExternalMemoryHandleType} value
     * @param nativeHandle the {@code native_handle} pointer's value: an fd as {@code (void*)(intptr_t)fd}
     * @param sizeBytes the size of the whole external allocation
     * @param offsetBytes where the imported range starts in it
     */
    public record MemoryDescriptor(int version, int handleType, long nativeHandle, long sizeBytes, long offsetBytes) {
        /** A descriptor at the host's API version. */
        public static MemoryDescriptor of(ExternalMemoryType type, long nativeHandle, long sizeBytes, long offsetBytes) {
            return new MemoryDescriptor(OrtHost.shared().api().version(), type.ortValue(), nativeHandle, sizeBytes,
                    offsetBytes);
        }

        public MemoryDescriptor withVersion(int newVersion) {
            return new MemoryDescriptor(newVersion, handleType, nativeHandle, sizeBytes, offsetBytes);
        }

        /** The handle type, if it is one javaep knows. */
        public Optional<ExternalMemoryType> type() {
            return ExternalMemoryType.fromOrt(handleType);
        }

        MemorySegment write(Arena arena) {
            StructLayout layout = OrtInteropLayouts.MEMORY_DESCRIPTOR;
            MemorySegment struct = writeHandleHead(arena, layout, version, "handle_type", handleType, nativeHandle);
            struct.set(JAVA_LONG, OrtInteropLayouts.offset(layout, "size_bytes"), sizeBytes);
            struct.set(JAVA_LONG, OrtInteropLayouts.offset(layout, "offset_bytes"), offsetBytes);
            return struct;
        }

        /** Reads a descriptor at the start of {@code struct} (the copy an EP keeps in its handle, say). */
        static MemoryDescriptor read(MemorySegment struct) {
            StructLayout layout = OrtInteropLayouts.MEMORY_DESCRIPTOR;
            return new MemoryDescriptor(struct.get(JAVA_INT, OrtInteropLayouts.offset(layout, "version")),
                    struct.get(JAVA_INT, OrtInteropLayouts.offset(layout, "handle_type")),
                    struct.get(ADDRESS, OrtInteropLayouts.offset(layout, "native_handle")).address(),
                    struct.get(JAVA_LONG, OrtInteropLayouts.offset(layout, "size_bytes")),
                    struct.get(JAVA_LONG, OrtInteropLayouts.offset(layout, "offset_bytes")));
        }
    }

    /**
     * {@code OrtExternalSemaphoreDescriptor}, field for field; the canonical constructor takes any values.
     *
     * @param type an {@code OrtExternalSemaphoreType} value
     * @param nativeHandle the {@code native_handle} pointer's value: an fd as {@code (void*)(intptr_t)fd}
     */
    public record SemaphoreDescriptor(int version, int type, long nativeHandle) {
        /** A descriptor at the host's API version. */
        public static SemaphoreDescriptor of(ExternalSemaphoreType type, long nativeHandle) {
            return new SemaphoreDescriptor(OrtHost.shared().api().version(), type.ortValue(), nativeHandle);
        }

        public SemaphoreDescriptor withVersion(int newVersion) {
            return new SemaphoreDescriptor(newVersion, type, nativeHandle);
        }

        /** The semaphore type, if it is one javaep knows. */
        public Optional<ExternalSemaphoreType> semaphoreType() {
            return ExternalSemaphoreType.fromOrt(type);
        }

        MemorySegment write(Arena arena) {
            return writeHandleHead(arena, OrtInteropLayouts.SEMAPHORE_DESCRIPTOR, version, "type", type, nativeHandle);
        }

        static SemaphoreDescriptor read(MemorySegment struct) {
            StructLayout layout = OrtInteropLayouts.SEMAPHORE_DESCRIPTOR;
            return new SemaphoreDescriptor(struct.get(JAVA_INT, OrtInteropLayouts.offset(layout, "version")),
                    struct.get(JAVA_INT, OrtInteropLayouts.offset(layout, "type")),
                    struct.get(ADDRESS, OrtInteropLayouts.offset(layout, "native_handle")).address());
        }
    }

    /**
     * {@code OrtExternalTensorDescriptor}, field for field. {@code rank} is independent of
     * {@code shape.length} so a test can lie about it; a null {@code shape} passes a NULL pointer.
     *
     * @param elementType an ONNX element type value
     * @param offsetBytes where the tensor starts, relative to the memory descriptor's {@code offsetBytes}
     */
    public record TensorDescriptor(int version, int elementType, long[] shape, long rank, long offsetBytes) {
        public TensorDescriptor {
            shape = shape == null ? null : shape.clone();
        }

        /** A descriptor at the host's API version with {@code rank = shape.length}. */
        public static TensorDescriptor of(ElementType elementType, long[] shape, long offsetBytes) {
            return new TensorDescriptor(OrtHost.shared().api().version(), elementType.onnxValue(), shape, shape.length,
                    offsetBytes);
        }

        public TensorDescriptor withVersion(int newVersion) {
            return new TensorDescriptor(newVersion, elementType, shape, rank, offsetBytes);
        }

        public TensorDescriptor withRank(long newRank) {
            return new TensorDescriptor(version, elementType, shape, newRank, offsetBytes);
        }

        /** A copy; null when the descriptor passes a NULL shape. */
        @Override
        public long[] shape() {
            return shape == null ? null : shape.clone();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof TensorDescriptor other && version == other.version && elementType == other.elementType
                    && Arrays.equals(shape, other.shape) && rank == other.rank && offsetBytes == other.offsetBytes;
        }

        @Override
        public int hashCode() {
            return 31 * Arrays.hashCode(shape) + Objects.hash(version, elementType, rank, offsetBytes);
        }

        @Override
        public String toString() {
            return "TensorDescriptor[version=" + version + ", elementType=" + elementType + ", shape="
                    + Arrays.toString(shape) + ", rank=" + rank + ", offsetBytes=" + offsetBytes + "]";
        }

        MemorySegment write(Arena arena) {
            StructLayout layout = OrtInteropLayouts.TENSOR_DESCRIPTOR;
            MemorySegment struct = arena.allocate(layout);
            // an empty shape (a scalar) still gets a valid pointer: only null means NULL
            MemorySegment dims = shape == null ? MemorySegment.NULL
                    : shape.length == 0 ? arena.allocate(JAVA_LONG) : arena.allocateFrom(JAVA_LONG, shape);
            struct.set(JAVA_INT, OrtInteropLayouts.offset(layout, "version"), version);
            struct.set(JAVA_INT, OrtInteropLayouts.offset(layout, "element_type"), elementType);
            struct.set(ADDRESS, OrtInteropLayouts.offset(layout, "shape"), dims);
            struct.set(JAVA_LONG, OrtInteropLayouts.offset(layout, "rank"), rank);
            struct.set(JAVA_LONG, OrtInteropLayouts.offset(layout, "offset_bytes"), offsetBytes);
            return struct;
        }
    }
}
