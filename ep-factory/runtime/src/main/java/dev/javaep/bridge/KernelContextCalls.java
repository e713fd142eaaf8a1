package dev.javaep.bridge;

import dev.javaep.ort.FunctionTable;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.ort.OrtEpApiSlot;
import java.lang.invoke.MethodHandle;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The ORT functions a {@link KernelContextView} calls per tensor per Run, bound with pointers as {@code long}
 * addresses ({@link FunctionTable#addressHandle}): a {@code MemorySegment} parameter or result is an object per
 * call, which the JIT does not always scalar-replace across a downcall. The getters that only read ORT's own
 * structures are bound {@code critical}; {@code KernelContext_GetOutput} allocates through the EP's allocator
 * (an upcall for a Java allocator), so it is not. One set per ORT runtime.
 */
final class KernelContextCalls {
    private static final ConcurrentHashMap<Long, KernelContextCalls> BY_RUNTIME = new ConcurrentHashMap<>();

    /** {@code OrtStatus* (const OrtKernelContext*, size_t index, const OrtValue** out)} */
    final MethodHandle getInput;
    /** {@code OrtStatus* (OrtKernelContext*, size_t index, const int64_t* dims, size_t count, OrtValue** out)} */
    final MethodHandle getOutput;
    /** {@code OrtStatus* (OrtValue*, void** out)} */
    final MethodHandle getTensorMutableData;
    /** {@code OrtStatus* (const OrtValue*, ONNXTensorElementDataType* type, const int64_t** dims, size_t* count)} */
    final MethodHandle getTypeAndShape;
    /** {@code OrtStatus* (const OrtKernelContext*, void** out)}: {@code KernelContext_GetGPUComputeStream} */
    final MethodHandle getComputeStream;
    /** {@code const OrtMemoryDevice* (const OrtValue*)} */
    final MethodHandle valueMemoryDevice;
    /** {@code bool (const OrtMemoryDevice*, const OrtMemoryDevice*)} */
    final MethodHandle memoryDevicesEqual;

    private KernelContextCalls(OrtRuntime runtime) {
        FunctionTable api = runtime.api().table();
        FunctionTable epApi = runtime.epApi().table();
        getInput = api.addressHandle(OrtApiSlot.KernelContext_GetInput, true);
        getOutput = api.addressHandle(OrtApiSlot.KernelContext_GetOutput, false);
        getComputeStream = api.addressHandle(OrtApiSlot.KernelContext_GetGPUComputeStream, true);
        getTensorMutableData = api.addressHandle(OrtApiSlot.GetTensorMutableData, true);
        getTypeAndShape = api.addressHandle(OrtApiSlot.GetTensorElementTypeAndShapeDataReference, true);
        valueMemoryDevice = epApi.addressHandle(OrtEpApiSlot.Value_GetMemoryDevice, true);
        memoryDevicesEqual = epApi.addressHandle(OrtEpApiSlot.MemoryDevice_AreEqual, true);
    }

    static KernelContextCalls of(OrtRuntime runtime) {
        return BY_RUNTIME.computeIfAbsent(runtime.api().address().address(), _ -> new KernelContextCalls(runtime));
    }

    /** Throws what a non-zero {@code OrtStatus*} says (and releases it). */
    static void check(OrtApi api, long status) {
        if (status != 0) {
            throw api.toException(java.lang.foreign.MemorySegment.ofAddress(status));
        }
    }
}
