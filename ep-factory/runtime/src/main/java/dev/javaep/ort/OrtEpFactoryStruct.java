package dev.javaep.ort;

import static dev.javaep.ort.CTypes.BOOL;
import static dev.javaep.ort.CTypes.POINTER;
import static dev.javaep.ort.CTypes.SIZE_T;
import static dev.javaep.ort.CTypes.STATUS;
import static dev.javaep.ort.CTypes.UINT32;

import java.lang.foreign.FunctionDescriptor;

/** {@code struct OrtEpFactory} (onnxruntime_ep_c_api.h): allocated at its API-29 size, 168 bytes. */
public enum OrtEpFactoryStruct implements CallbackSlot {
    GetName(8, 22, FunctionDescriptor.of(POINTER, POINTER)),
    GetVendor(16, 22, FunctionDescriptor.of(POINTER, POINTER)),
    /** (this, const OrtHardwareDevice* const* devices, size_t n, OrtEpDevice** out, size_t max, size_t* n_out) */
    GetSupportedDevices(24, 22, FunctionDescriptor.of(STATUS, POINTER, POINTER, SIZE_T, POINTER, SIZE_T, POINTER)),
    /** (this, devices, const OrtKeyValuePairs* const* ep_metadata, size_t n, const OrtSessionOptions*, const OrtLogger*, OrtEp** out) */
    CreateEp(32, 22, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER, SIZE_T, POINTER, POINTER, POINTER)),
    ReleaseEp(40, 22, FunctionDescriptor.ofVoid(POINTER, POINTER)),
    GetVendorId(48, 23, FunctionDescriptor.of(UINT32, POINTER)),
    GetVersion(56, 23, FunctionDescriptor.of(POINTER, POINTER)),
    ValidateCompiledModelCompatibilityInfo(64, 23,
            FunctionDescriptor.of(STATUS, POINTER, POINTER, SIZE_T, POINTER, POINTER)),
    /** (this, const OrtMemoryInfo*, const OrtKeyValuePairs* options, OrtAllocator** out) */
    CreateAllocator(72, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER, POINTER)),
    ReleaseAllocator(80, 23, FunctionDescriptor.ofVoid(POINTER, POINTER)),
    /** (this, OrtDataTransferImpl** out) — may set NULL */
    CreateDataTransfer(88, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER)),
    IsStreamAware(96, 23, FunctionDescriptor.of(BOOL, POINTER)),
    /** (this, const OrtMemoryDevice*, const OrtKeyValuePairs* stream_options, OrtSyncStreamImpl** out) */
    CreateSyncStreamForDevice(104, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER, POINTER)),
    GetHardwareDeviceIncompatibilityDetails(112, 24, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER)),
    /** (this, const OrtEpDevice*, OrtExternalResourceImporterImpl** out) — NULL out = unsupported */
    CreateExternalResourceImporterForDevice(120, 24, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER)),
    GetNumCustomOpDomains(128, 24, FunctionDescriptor.of(STATUS, POINTER, POINTER)),
    GetCustomOpDomains(136, 24, FunctionDescriptor.of(STATUS, POINTER, POINTER, SIZE_T)),
    InitGraphicsInterop(144, 25, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER)),
    DeinitGraphicsInterop(152, 25, FunctionDescriptor.of(STATUS, POINTER, POINTER)),
    SelectBestModelCandidate(160, 28, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER, SIZE_T, POINTER, POINTER));

    /** sizeof(OrtEpFactory) at API 29 (and 30). Always allocate all of it: ORT 1.25+ reads InitGraphicsInterop without a version check. */
    public static final long SIZE = 168;

    private final long byteOffset;
    private final int since;
    private final FunctionDescriptor descriptor;

    OrtEpFactoryStruct(long byteOffset, int since, FunctionDescriptor descriptor) {
        this.byteOffset = byteOffset;
        this.since = since;
        this.descriptor = descriptor;
    }

    @Override public long byteOffset() { return byteOffset; }
    @Override public int since() { return since; }
    @Override public FunctionDescriptor descriptor() { return descriptor; }
    @Override public boolean returnsStatus() { return CTypes.returnsStatus(descriptor); }
}
