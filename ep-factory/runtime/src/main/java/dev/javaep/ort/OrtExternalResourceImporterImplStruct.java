package dev.javaep.ort;

import static dev.javaep.ort.CTypes.BOOL;
import static dev.javaep.ort.CTypes.ENUM;
import static dev.javaep.ort.CTypes.POINTER;
import static dev.javaep.ort.CTypes.STATUS;
import static dev.javaep.ort.CTypes.UINT64;

import java.lang.foreign.FunctionDescriptor;

/**
 * {@code struct OrtExternalResourceImporterImpl} (onnxruntime_ep_c_api.h, API 24): 88 bytes, unchanged
 * to API 30. ORT core never calls {@link #ReleaseMemory}/{@link #ReleaseSemaphore} (apps release
 * handles through {@code handle->Release}); they are filled all the same, as ORT's own EPs do.
 */
public enum OrtExternalResourceImporterImplStruct implements CallbackSlot {
    /** bool (const this*, OrtExternalMemoryHandleType) */
    CanImportMemory(8, 24, FunctionDescriptor.of(BOOL, POINTER, ENUM)),
    /** (this, const OrtExternalMemoryDescriptor*, OrtExternalMemoryHandle** out) */
    ImportMemory(16, 24, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER)),
    /** void (this, OrtExternalMemoryHandle*) */
    ReleaseMemory(24, 24, FunctionDescriptor.ofVoid(POINTER, POINTER)),
    /** (this, const OrtExternalMemoryHandle*, const OrtExternalTensorDescriptor*, OrtValue** out) */
    CreateTensorFromMemory(32, 24, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER, POINTER)),
    /** bool (const this*, OrtExternalSemaphoreType) */
    CanImportSemaphore(40, 24, FunctionDescriptor.of(BOOL, POINTER, ENUM)),
    /** (this, const OrtExternalSemaphoreDescriptor*, OrtExternalSemaphoreHandle** out) */
    ImportSemaphore(48, 24, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER)),
    /** void (this, OrtExternalSemaphoreHandle*) */
    ReleaseSemaphore(56, 24, FunctionDescriptor.ofVoid(POINTER, POINTER)),
    /** (this, OrtExternalSemaphoreHandle*, OrtSyncStream*, uint64_t value) */
    WaitSemaphore(64, 24, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER, UINT64)),
    /** (this, OrtExternalSemaphoreHandle*, OrtSyncStream*, uint64_t value) */
    SignalSemaphore(72, 24, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER, UINT64)),
    /** void (this) — ORT calls it when the app releases its {@code OrtExternalResourceImporter}. */
    Release(80, 24, FunctionDescriptor.ofVoid(POINTER));

    public static final long SIZE = 88;

    private final long byteOffset;
    private final int since;
    private final FunctionDescriptor descriptor;

    OrtExternalResourceImporterImplStruct(long byteOffset, int since, FunctionDescriptor descriptor) {
        this.byteOffset = byteOffset;
        this.since = since;
        this.descriptor = descriptor;
    }

    @Override public long byteOffset() { return byteOffset; }
    @Override public int since() { return since; }
    @Override public FunctionDescriptor descriptor() { return descriptor; }
    @Override public boolean returnsStatus() { return CTypes.returnsStatus(descriptor); }
}
