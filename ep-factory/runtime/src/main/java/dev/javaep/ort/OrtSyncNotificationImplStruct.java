package dev.javaep.ort;

import static dev.javaep.ort.CTypes.POINTER;
import static dev.javaep.ort.CTypes.STATUS;

import java.lang.foreign.FunctionDescriptor;

/** {@code struct OrtSyncNotificationImpl} (onnxruntime_ep_c_api.h, API 23): 40 bytes. */
public enum OrtSyncNotificationImplStruct implements CallbackSlot {
    Release(8, 23, FunctionDescriptor.ofVoid(POINTER)),
    Activate(16, 23, FunctionDescriptor.of(STATUS, POINTER)),
    /** (this, OrtSyncStream* consumer_stream) */
    WaitOnDevice(24, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER)),
    WaitOnHost(32, 23, FunctionDescriptor.of(STATUS, POINTER));

    public static final long SIZE = 40;

    private final long byteOffset;
    private final int since;
    private final FunctionDescriptor descriptor;

    OrtSyncNotificationImplStruct(long byteOffset, int since, FunctionDescriptor descriptor) {
        this.byteOffset = byteOffset;
        this.since = since;
        this.descriptor = descriptor;
    }

    @Override public long byteOffset() { return byteOffset; }
    @Override public int since() { return since; }
    @Override public FunctionDescriptor descriptor() { return descriptor; }
    @Override public boolean returnsStatus() { return CTypes.returnsStatus(descriptor); }
}
