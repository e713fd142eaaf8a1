package dev.javaep.ort;

import static dev.javaep.ort.CTypes.POINTER;
import static dev.javaep.ort.CTypes.STATUS;

import java.lang.foreign.FunctionDescriptor;

/** {@code struct OrtSyncStreamImpl} (onnxruntime_ep_c_api.h, API 23): 48 bytes. */
public enum OrtSyncStreamImplStruct implements CallbackSlot {
    Release(8, 23, FunctionDescriptor.ofVoid(POINTER)),
    /** The native stream (a CUstream for CUDA); what {@code OrtApi::SyncStream_GetHandle} returns to apps. */
    GetHandle(16, 23, FunctionDescriptor.of(POINTER, POINTER)),
    /** (this, OrtSyncNotificationImpl** out) */
    CreateNotification(24, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER)),
    Flush(32, 23, FunctionDescriptor.of(STATUS, POINTER)),
    OnSessionRunEnd(40, 23, FunctionDescriptor.of(STATUS, POINTER));

    public static final long SIZE = 48;

    private final long byteOffset;
    private final int since;
    private final FunctionDescriptor descriptor;

    OrtSyncStreamImplStruct(long byteOffset, int since, FunctionDescriptor descriptor) {
        this.byteOffset = byteOffset;
        this.since = since;
        this.descriptor = descriptor;
    }

    @Override public long byteOffset() { return byteOffset; }
    @Override public int since() { return since; }
    @Override public FunctionDescriptor descriptor() { return descriptor; }
    @Override public boolean returnsStatus() { return CTypes.returnsStatus(descriptor); }
}
