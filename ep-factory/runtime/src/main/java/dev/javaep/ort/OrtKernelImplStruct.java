package dev.javaep.ort;

import static dev.javaep.ort.CTypes.INT;
import static dev.javaep.ort.CTypes.POINTER;
import static dev.javaep.ort.CTypes.SIZE_T;
import static dev.javaep.ort.CTypes.STATUS;

import java.lang.foreign.FunctionDescriptor;

/**
 * {@code struct OrtKernelImpl} (onnxruntime_ep_c_api.h, 1.24, unchanged to API 30): 40 bytes. The
 * leading 8 bytes are {@code uint32_t ort_version_supported} and {@code uint32_t flags}, which the EP
 * must leave 0 (ORT uses it internally). ORT owns a kernel once the kernel-create function returned
 * it, and calls {@code Release} when the session drops the kernel.
 */
public enum OrtKernelImplStruct implements CallbackSlot {
    /** (this, OrtKernelContext*) */
    Compute(8, 24, FunctionDescriptor.of(STATUS, POINTER, POINTER)),
    Release(16, 24, FunctionDescriptor.ofVoid(POINTER)),
    /** Optional: (this, const OrtValue* tensor, int input_index, OrtAllocator*, OrtSharedPrePackedWeightCache*, bool* is_packed) */
    PrePackWeight(24, 24, FunctionDescriptor.of(STATUS, POINTER, POINTER, INT, POINTER, POINTER, POINTER)),
    /** Optional: (this, const void* const* buffer_data_ptrs, const size_t* buffer_data_sizes, size_t num_buffers, int input_index) */
    SetSharedPrePackedWeight(32, 24, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER, SIZE_T, INT));

    public static final long SIZE = 40;
    /** Byte offset of {@code uint32_t flags}, which must stay 0. */
    public static final long FLAGS_OFFSET = 4;

    private final long byteOffset;
    private final int since;
    private final FunctionDescriptor descriptor;

    OrtKernelImplStruct(long byteOffset, int since, FunctionDescriptor descriptor) {
        this.byteOffset = byteOffset;
        this.since = since;
        this.descriptor = descriptor;
    }

    @Override public long byteOffset() { return byteOffset; }
    @Override public int since() { return since; }
    @Override public FunctionDescriptor descriptor() { return descriptor; }
    @Override public boolean returnsStatus() { return CTypes.returnsStatus(descriptor); }
}
