package dev.javaep.ort;

import static dev.javaep.ort.CTypes.BOOL;
import static dev.javaep.ort.CTypes.POINTER;
import static dev.javaep.ort.CTypes.SIZE_T;
import static dev.javaep.ort.CTypes.STATUS;

import java.lang.foreign.FunctionDescriptor;

/** {@code struct OrtDataTransferImpl} (onnxruntime_ep_c_api.h, API 23): 32 bytes. The version field is {@code ort_version_supported}. */
public enum OrtDataTransferImplStruct implements CallbackSlot {
    Release(8, 23, FunctionDescriptor.ofVoid(POINTER)),
    /** (this, const OrtMemoryDevice* src, const OrtMemoryDevice* dst) */
    CanCopy(16, 23, FunctionDescriptor.of(BOOL, POINTER, POINTER, POINTER)),
    /** (this, const OrtValue** src, OrtValue** dst, OrtSyncStream** streams (NULL if not stream-aware), size_t n) */
    CopyTensors(24, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER, POINTER, SIZE_T));

    public static final long SIZE = 32;

    private final long byteOffset;
    private final int since;
    private final FunctionDescriptor descriptor;

    OrtDataTransferImplStruct(long byteOffset, int since, FunctionDescriptor descriptor) {
        this.byteOffset = byteOffset;
        this.since = since;
        this.descriptor = descriptor;
    }

    @Override public long byteOffset() { return byteOffset; }
    @Override public int since() { return since; }
    @Override public FunctionDescriptor descriptor() { return descriptor; }
    @Override public boolean returnsStatus() { return CTypes.returnsStatus(descriptor); }
}
