package dev.javaep.ort;

import static dev.javaep.ort.CTypes.POINTER;
import static dev.javaep.ort.CTypes.SIZE_T;
import static dev.javaep.ort.CTypes.STATUS;

import java.lang.foreign.FunctionDescriptor;

/** {@code struct OrtAllocator} (onnxruntime_c_api.h): 64 bytes with {@code Shrink}. The version field is {@code version}. */
public enum OrtAllocatorStruct implements CallbackSlot {
    Alloc(8, 1, FunctionDescriptor.of(POINTER, POINTER, SIZE_T)),
    Free(16, 1, FunctionDescriptor.ofVoid(POINTER, POINTER)),
    Info(24, 1, FunctionDescriptor.of(POINTER, POINTER)),
    Reserve(32, 18, FunctionDescriptor.of(POINTER, POINTER, SIZE_T)),
    GetStats(40, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER)),
    /** (this, size_t, OrtSyncStream*) */
    AllocOnStream(48, 23, FunctionDescriptor.of(POINTER, POINTER, SIZE_T, POINTER)),
    Shrink(56, 25, FunctionDescriptor.of(STATUS, POINTER));

    public static final long SIZE = 64;

    private final long byteOffset;
    private final int since;
    private final FunctionDescriptor descriptor;

    OrtAllocatorStruct(long byteOffset, int since, FunctionDescriptor descriptor) {
        this.byteOffset = byteOffset;
        this.since = since;
        this.descriptor = descriptor;
    }

    @Override public long byteOffset() { return byteOffset; }
    @Override public int since() { return since; }
    @Override public FunctionDescriptor descriptor() { return descriptor; }
    @Override public boolean returnsStatus() { return CTypes.returnsStatus(descriptor); }
}
