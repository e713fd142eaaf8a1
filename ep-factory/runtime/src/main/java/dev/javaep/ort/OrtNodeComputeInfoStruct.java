package dev.javaep.ort;

import static dev.javaep.ort.CTypes.POINTER;
import static dev.javaep.ort.CTypes.STATUS;

import java.lang.foreign.FunctionDescriptor;

/** {@code struct OrtNodeComputeInfo} (1.23, unchanged to API 30): 32 bytes. */
public enum OrtNodeComputeInfoStruct implements CallbackSlot {
    /** (this, OrtNodeComputeContext*, void** compute_state) */
    CreateState(8, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER)),
    /** (this, void* compute_state, OrtKernelContext*) */
    Compute(16, 23, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER)),
    ReleaseState(24, 23, FunctionDescriptor.ofVoid(POINTER, POINTER));

    public static final long SIZE = 32;

    private final long byteOffset;
    private final int since;
    private final FunctionDescriptor descriptor;

    OrtNodeComputeInfoStruct(long byteOffset, int since, FunctionDescriptor descriptor) {
        this.byteOffset = byteOffset;
        this.since = since;
        this.descriptor = descriptor;
    }

    @Override public long byteOffset() { return byteOffset; }
    @Override public int since() { return since; }
    @Override public FunctionDescriptor descriptor() { return descriptor; }
    @Override public boolean returnsStatus() { return CTypes.returnsStatus(descriptor); }
}
