package dev.javaep.host;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_INT;

import dev.javaep.ort.FunctionTable;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtInteropApiSlot;
import dev.javaep.ort.OrtInteropLayouts;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.util.function.Consumer;
import java.util.function.Function;

/**
 * What {@link ExternalMemory} and {@link ExternalSemaphore} share: a handle an EP returned, which starts
 * with ORT's base struct ({@code version}, {@code ep_device}, a descriptor copy, {@code Release}). The
 * accessors read that base struct as the EP filled it, so tests can check what the EP put there.
 * Owned: {@link #close()} calls the interop API's release function, which calls the handle's {@code Release}.
 */
public abstract sealed class ImportedHandle<D> implements AutoCloseable permits ExternalMemory, ExternalSemaphore {
    private final FunctionTable interop;
    private final StructLayout layout;
    private final OrtInteropApiSlot release;
    private final StructLayout descriptorLayout;
    private final Function<MemorySegment, D> readDescriptor;
    private final Consumer<AutoCloseable> onClose; // tells the importer this handle is gone
    private MemorySegment handle;

    /**
     * @param layout the handle's struct
     * @param descriptorLayout the descriptor struct the handle keeps a copy of
     * @param readDescriptor reads that copy into its record
     */
    ImportedHandle(FunctionTable interop, StructLayout layout, OrtInteropApiSlot release, StructLayout descriptorLayout,
                   Function<MemorySegment, D> readDescriptor, MemorySegment handle, Consumer<AutoCloseable> onClose) {
        this.interop = interop;
        this.layout = layout;
        this.release = release;
        this.descriptorLayout = descriptorLayout;
        this.readDescriptor = readDescriptor;
        this.handle = handle.reinterpret(layout.byteSize());
        this.onClose = onClose;
    }

    /** The handle pointer (the EP's object). */
    public MemorySegment handle() {
        return OrtCalls.live(handle, getClass().getSimpleName());
    }

    /** The base struct's {@code version}: ORT requires the EP to put the ORT API version there. */
    public int version() {
        return handle().get(JAVA_INT, OrtInteropLayouts.offset(layout, "version"));
    }

    /** The base struct's {@code ep_device}: the address of the {@code OrtEpDevice} the EP says the import belongs to. */
    public long epDevice() {
        return handle().get(ADDRESS, OrtInteropLayouts.offset(layout, "ep_device")).address();
    }

    /** The address of the base struct's {@code Release} function; ORT calls it, so 0 is an EP bug. */
    public long releaseFunction() {
        return handle().get(ADDRESS, OrtInteropLayouts.offset(layout, "Release")).address();
    }

    /** The base struct's copy of the descriptor the resource was imported with, as the EP stored it. */
    public D descriptor() {
        return readDescriptor.apply(handle().asSlice(OrtInteropLayouts.offset(layout, "descriptor"), descriptorLayout.byteSize()));
    }

    /** Releases the handle through ORT. Idempotent. */
    @Override
    public void close() {
        if (handle != null) {
            try {
                interop.handle(release).invokeExact(handle);
            } catch (Throwable t) {
                throw OrtApi.rethrow(t);
            }
            handle = null;
            onClose.accept(this);
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + (handle == null ? "[closed]" : "[" + descriptor() + "]");
    }
}
