package dev.javaep.ort;

import static dev.javaep.ort.CTypes.BOOL;
import static dev.javaep.ort.CTypes.ENUM;
import static dev.javaep.ort.CTypes.INT;
import static dev.javaep.ort.CTypes.POINTER;
import static dev.javaep.ort.CTypes.SIZE_T;
import static dev.javaep.ort.CTypes.STATUS;

import java.lang.foreign.FunctionDescriptor;

/** {@code struct OrtEp} (onnxruntime_ep_c_api.h): allocated at its API-29 size, 208 bytes. */
public enum OrtEpStruct implements CallbackSlot {
    GetName(8, 22, FunctionDescriptor.of(POINTER, POINTER)),
    /** (this, const OrtGraph*, OrtEpGraphSupportInfo*) */
    GetCapability(16, 22, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER)),
    /** (this, const OrtGraph** graphs, const OrtNode** fused_nodes, size_t n, OrtNodeComputeInfo** out, OrtNode** ep_context_nodes) */
    Compile(24, 22, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER, SIZE_T, POINTER, POINTER)),
    ReleaseNodeComputeInfos(32, 22, FunctionDescriptor.ofVoid(POINTER, POINTER, SIZE_T)),
    GetPreferredDataLayout(40, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER)),
    ShouldConvertDataLayoutForOp(48, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER, ENUM, POINTER)),
    SetDynamicOptions(56, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER, SIZE_T)),
    OnRunStart(64, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER)),
    OnRunEnd(72, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER, BOOL)),
    CreateAllocator(80, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER)),
    CreateSyncStreamForDevice(88, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER)),
    GetCompiledModelCompatibilityInfo(96, 23, FunctionDescriptor.of(POINTER, POINTER, POINTER)),
    GetKernelRegistry(104, 24, FunctionDescriptor.of(STATUS, POINTER, POINTER)),
    /** (this, bool* is_supported) */
    IsConcurrentRunSupported(112, 24, FunctionDescriptor.of(STATUS, POINTER, POINTER)),
    /** Blocks until the EP's device work is done (IoBinding input sync). */
    Sync(120, 25, FunctionDescriptor.of(STATUS, POINTER)),
    CreateProfiler(128, 25, FunctionDescriptor.of(STATUS, POINTER, POINTER)),
    IsGraphCaptureEnabled(136, 26, FunctionDescriptor.of(BOOL, POINTER)),
    IsGraphCaptured(144, 26, FunctionDescriptor.of(BOOL, POINTER, INT)),
    ReplayGraph(152, 26, FunctionDescriptor.of(STATUS, POINTER, INT)),
    GetGraphCaptureNodeAssignmentPolicy(160, 26, FunctionDescriptor.of(ENUM, POINTER)),
    GetAvailableResource(168, 26, FunctionDescriptor.of(STATUS, POINTER, POINTER)),
    OnSessionInitializationEnd(176, 27, FunctionDescriptor.of(STATUS, POINTER)),
    GetDefaultMemoryDevice(184, 27, FunctionDescriptor.of(STATUS, POINTER, POINTER)),
    ReleaseCapturedGraph(192, 27, FunctionDescriptor.of(STATUS, POINTER, INT)),
    GetWeightlessSupport(200, 29, FunctionDescriptor.of(STATUS, POINTER, POINTER));

    public static final long SIZE = 208;

    private final long byteOffset;
    private final int since;
    private final FunctionDescriptor descriptor;

    OrtEpStruct(long byteOffset, int since, FunctionDescriptor descriptor) {
        this.byteOffset = byteOffset;
        this.since = since;
        this.descriptor = descriptor;
    }

    @Override public long byteOffset() { return byteOffset; }
    @Override public int since() { return since; }
    @Override public FunctionDescriptor descriptor() { return descriptor; }
    @Override public boolean returnsStatus() { return CTypes.returnsStatus(descriptor); }
}
