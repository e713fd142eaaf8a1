package dev.javaep.bridge;

import static dev.javaep.ort.OrtInteropLayouts.MEMORY_DESCRIPTOR;
import static dev.javaep.ort.OrtInteropLayouts.MEMORY_HANDLE;
import static dev.javaep.ort.OrtInteropLayouts.offset;

import dev.javaep.ort.OrtExternalMemoryHandleStruct;
import dev.javaep.spi.DeviceAllocator;
import dev.javaep.spi.ExternalMemoryDescriptor;
import dev.javaep.spi.ImportedMemory;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;

/**
 * An {@code OrtExternalMemoryHandle} (the base struct ORT defines, nothing of ours after it) in front
 * of one {@link ImportedMemory}. Tensors made from it are created with a deleter
 * ({@code CreateTensorWithDataAndDeleterAsOrtValue}) that holds a reference, so the app may release
 * the handle while tensors are still bound: the memory is unmapped when the last of them goes.
 */
final class ImportedMemoryBridge extends ImportedHandleBridge {
    private static final CallbackStruct<OrtExternalMemoryHandleStruct, ImportedMemoryBridge> STRUCT =
            new CallbackStruct<>(OrtExternalMemoryHandleStruct.class, MethodHandles.lookup());

    private final ImportedMemory memory;
    private final References references = new References(this::close);
    /** The {@code OrtAllocator} whose Free ORT calls when a tensor over this memory is released; made on first use. */
    private MemorySegment tensorDeleter;

    private ImportedMemoryBridge(ImporterBridge importer, ImportedMemory memory, ExternalMemoryDescriptor descriptor,
                                 int descriptorVersion) {
        super(STRUCT, importer, MEMORY_HANDLE, MEMORY_DESCRIPTOR, descriptorVersion);
        this.memory = memory;
        descriptorCopy.set(ValueLayout.JAVA_INT, offset(MEMORY_DESCRIPTOR, "handle_type"), descriptor.type().ortValue());
        descriptorCopy.set(ValueLayout.JAVA_LONG, offset(MEMORY_DESCRIPTOR, "size_bytes"), descriptor.sizeBytes());
        descriptorCopy.set(ValueLayout.JAVA_LONG, offset(MEMORY_DESCRIPTOR, "offset_bytes"), descriptor.offsetBytes());
        STRUCT.register(this);
    }

    /** Wraps a fresh import; if that fails, the import is closed (the caller then still owns nothing new). */
    static MemorySegment create(ImporterBridge importer, ImportedMemory memory, ExternalMemoryDescriptor descriptor,
                                int descriptorVersion) {
        return importer.references().retainFor(
                () -> new ImportedMemoryBridge(importer, memory, descriptor, descriptorVersion).struct, memory::close);
    }

    /** The import at {@code handle}, or null when it is none of javaep's (or was released). */
    static ImportedMemoryBridge find(MemorySegment handle) {
        return STRUCT.find(handle);
    }

    long byteSize() {
        return memory.byteSize();
    }

    /** A tensor view; the tensor holds a reference until ORT releases it. */
    MemorySegment createTensor(InteropDescriptors.TensorView view) {
        references.retain();
        try {
            return importer.runtime().api().createTensorWithDataAndDeleter(tensorDeleter(),
                    MemorySegment.ofAddress(memory.address() + view.offsetBytes()), view.byteSize(), view.shape(),
                    view.elementType().onnxValue());
        } catch (RuntimeException | Error e) {
            references.release();
            throw e;
        }
    }

    private synchronized MemorySegment tensorDeleter() {
        if (tensorDeleter == null) {
            // One per import, made per frame like the handle: COLLECTED too (no handshake when the last tensor goes).
            tensorDeleter = AllocatorBridge.create(new TensorReferences(), importer.tensorMemoryInfo(), importer.runtime(),
                    StructMemory.COLLECTED);
        }
        return tensorDeleter;
    }

    private void close() {
        try {
            memory.close();
        } finally {
            synchronized (this) {
                if (tensorDeleter != null) {
                    AllocatorBridge.release(tensorDeleter);
                }
            }
            freeStruct();
            importer.references().release();
        }
    }

    /** {@code handle->Release}: the app lets go of the handle (tensors may live on). */
    static void release(MemorySegment handle) {
        ImportedMemoryBridge bridge = STRUCT.release(handle);
        if (bridge != null) {
            bridge.references.releaseOwner();
        }
    }

    /** The deleter's "allocator": allocates nothing; each Free is one tensor letting go. */
    private final class TensorReferences implements DeviceAllocator {
        @Override
        public long allocate(long bytes) {
            throw new UnsupportedOperationException("javaep: imported memory is not an allocator");
        }

        @Override
        public void free(long address) {
            references.release();
        }
    }
}
