package dev.javaep.ort;

import static dev.javaep.ort.CTypes.POINTER;
import static dev.javaep.ort.CTypes.STATUS;

import java.lang.foreign.FunctionDescriptor;

/**
 * {@code typedef OrtStatus* (*OrtKernelCreateFunc)(void* kernel_create_func_state, const OrtKernelInfo* info,
 * OrtKernelImpl** kernel_out)} (onnxruntime_ep_c_api.h, 1.24): the function an EP passes with each kernel
 * definition to {@code OrtEpApi::KernelRegistry_AddKernel}, together with an opaque state pointer ORT
 * hands back on every call. ORT calls it once per node at session initialization; on success it owns
 * {@code *kernel_out} and releases it through {@code OrtKernelImpl::Release}.
 *
 * <p>A function-pointer typedef, not a member of a struct javaep fills: it has no byte offset, and
 * {@link #byteOffset()} refuses to give one, so it cannot be placed into a {@code CallbackStruct}.
 */
public enum OrtKernelCreateFunc implements CallbackSlot {
    /** (void* state, const OrtKernelInfo*, OrtKernelImpl** kernel_out) */
    Create(24, FunctionDescriptor.of(STATUS, POINTER, POINTER, POINTER));

    private final int since;
    private final FunctionDescriptor descriptor;

    OrtKernelCreateFunc(int since, FunctionDescriptor descriptor) {
        this.since = since;
        this.descriptor = descriptor;
    }

    @Override
    public long byteOffset() {
        throw new UnsupportedOperationException("OrtKernelCreateFunc is passed by value to KernelRegistry_AddKernel, "
                + "not stored in a struct");
    }

    @Override public int since() { return since; }
    @Override public FunctionDescriptor descriptor() { return descriptor; }
    @Override public boolean returnsStatus() { return true; }
}
