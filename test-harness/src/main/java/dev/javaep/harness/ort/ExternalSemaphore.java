package dev.javaep.harness.ort;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.javaep.harness.ort.ExternalResourceImporter.SemaphoreDescriptor;
import dev.javaep.ort.FunctionTable;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtInteropApiSlot;
import dev.javaep.ort.OrtInteropLayouts;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.function.Consumer;

/**
 * An {@code OrtExternalSemaphoreHandle} an EP returned from {@link ExternalResourceImporter#importSemaphore}:
 * the EP's own object, which starts with ORT's base struct; the accessors read that base struct as the EP
 * filled it. Owned: {@link #close()} calls {@code ReleaseExternalSemaphoreHandle} (ORT calls the handle's
 * {@code Release}). Close it only after the waits and signals queued with it have run.
 */
public final class ExternalSemaphore implements AutoCloseable {
    private static final StructLayout LAYOUT = OrtInteropLayouts.SEMAPHORE_HANDLE;
    private static final long VERSION = OrtInteropLayouts.offset(LAYOUT, "version");
    private static final long EP_DEVICE = OrtInteropLayouts.offset(LAYOUT, "ep_device");
    private static final long DESCRIPTOR = OrtInteropLayouts.offset(LAYOUT, "descriptor");
    private static final long RELEASE = OrtInteropLayouts.offset(LAYOUT, "Release");

    private final FunctionTable interop;
    private final Consumer<AutoCloseable> onClose; // tells the importer this handle is gone
    private MemorySegment handle;

    ExternalSemaphore(FunctionTable interop, MemorySegment handle, Consumer<AutoCloseable> onClose) {
        this.interop = interop;
        this.handle = handle.reinterpret(LAYOUT.byteSize());
        this.onClose = onClose;
    }

    /** The {@code OrtExternalSemaphoreHandle*} (the EP's object). */
    public MemorySegment handle() {
        if (handle == null) {
            throw new IllegalStateException("ExternalSemaphore is closed");
        }
        return handle;
    }

    /** The base struct's {@code version}: ORT requires the EP to put the ORT API version there. */
    public int version() {
        return handle().get(JAVA_INT, VERSION);
    }

    /** The base struct's {@code ep_device}: the address of the {@code OrtEpDevice} the EP says the semaphore belongs to. */
    public long epDevice() {
        return handle().get(ADDRESS, EP_DEVICE).address();
    }

    /** The base struct's copy of the descriptor the semaphore was imported with, as the EP stored it. */
    public SemaphoreDescriptor descriptor() {
        return SemaphoreDescriptor.read(handle().asSlice(DESCRIPTOR, OrtInteropLayouts.SEMAPHORE_DESCRIPTOR.byteSize()));
    }

    /** The stored descriptor's {@code type}. */
    public int type() {
        return descriptor().type();
    }

    /** The address of the base struct's {@code Release} function; ORT calls it, so 0 is an EP bug. */
    public long releaseFunction() {
        return handle().get(ADDRESS, RELEASE).address();
    }

    /** {@code ReleaseExternalSemaphoreHandle}. Idempotent. */
    @Override
    public void close() {
        if (handle != null) {
            try {
                interop.handle(OrtInteropApiSlot.ReleaseExternalSemaphoreHandle).invokeExact(handle);
            } catch (Throwable t) {
                throw OrtApi.rethrow(t);
            }
            handle = null;
            onClose.accept(this);
        }
    }

    @Override
    public String toString() {
        return handle == null ? "ExternalSemaphore[closed]" : "ExternalSemaphore[" + descriptor() + "]";
    }
}
