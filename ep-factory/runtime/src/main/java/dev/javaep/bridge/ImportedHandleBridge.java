package dev.javaep.bridge;

import static dev.javaep.ort.OrtInteropLayouts.offset;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.foreign.ValueLayout;

/**
 * A handle an app imported through an {@link ImporterBridge} ({@code OrtExternalMemoryHandle},
 * {@code OrtExternalSemaphoreHandle}): ORT's base struct, holding the EP device and a copy of the app's descriptor.
 * The copy leaves {@code native_handle} NULL: after an fd import the fd is no longer the app's, and its number may be
 * reused. Each import holds a reference on its importer. The struct's memory is {@link StructMemory#COLLECTED}.
 */
abstract class ImportedHandleBridge extends StructBridge {
    final ImporterBridge importer;
    /** The struct's copy of the app's descriptor, version set; the subclass copies the fields it reads. */
    final MemorySegment descriptorCopy;

    /**
     * @param handle     the handle struct's layout: {@code version}, {@code ep_device}, {@code descriptor}, {@code Release}
     * @param descriptor the descriptor's layout, as embedded in {@code handle}
     */
    ImportedHandleBridge(CallbackStruct<?, ?> type, ImporterBridge importer, StructLayout handle, StructLayout descriptor,
                         int descriptorVersion) {
        // Made per frame by interop apps: COLLECTED, so that releasing one costs no handshake of every Java thread.
        super(type, importer.runtime(), StructMemory.COLLECTED);
        this.importer = importer;
        struct.set(ValueLayout.ADDRESS, offset(handle, "ep_device"), importer.epDevice());
        this.descriptorCopy = struct.asSlice(offset(handle, "descriptor"), descriptor.byteSize());
        descriptorCopy.set(ValueLayout.JAVA_INT, offset(descriptor, "version"), descriptorVersion);
    }
}
