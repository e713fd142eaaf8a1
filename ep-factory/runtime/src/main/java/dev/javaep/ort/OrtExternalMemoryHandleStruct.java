package dev.javaep.ort;

import static dev.javaep.ort.CTypes.POINTER;

import java.lang.foreign.FunctionDescriptor;

/**
 * The callback of {@code struct OrtExternalMemoryHandle} (onnxruntime_ep_c_api.h, API 24), a base struct the EP
 * embeds at the start of its own handle; its data fields are {@link OrtInteropLayouts#MEMORY_HANDLE}.
 * ORT's {@code OrtInteropApi::ReleaseExternalMemoryHandle} only calls {@code handle->Release(handle)}.
 */
public enum OrtExternalMemoryHandleStruct implements CallbackSlot {
    Release(48, 24, FunctionDescriptor.ofVoid(POINTER));

    /** sizeof(OrtExternalMemoryHandle); EP-private fields may follow. */
    public static final long SIZE = 56;

    private final long byteOffset;
    private final int since;
    private final FunctionDescriptor descriptor;

    OrtExternalMemoryHandleStruct(long byteOffset, int since, FunctionDescriptor descriptor) {
        this.byteOffset = byteOffset;
        this.since = since;
        this.descriptor = descriptor;
    }

    @Override public long byteOffset() { return byteOffset; }
    @Override public int since() { return since; }
    @Override public FunctionDescriptor descriptor() { return descriptor; }
    @Override public boolean returnsStatus() { return false; }
}
