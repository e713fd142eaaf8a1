package dev.javaep.cuda.driver;

import static dev.javaep.cuda.driver.CudaStructs.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.foreign.MemoryLayout;
import java.lang.foreign.StructLayout;
import org.junit.jupiter.api.Test;

/** Sizes and offsets against shared/reference/cuda-interop.md (CUDA 13.0 cuda.h, measured with gcc on x86-64). */
class CudaStructsTest {

    @Test
    void externalMemoryHandleDesc() {
        assertEquals(104, EXTERNAL_MEMORY_HANDLE_DESC.byteSize());
        assertTypeThenHandleUnion(EXTERNAL_MEMORY_HANDLE_DESC_TYPE, EXTERNAL_MEMORY_HANDLE_DESC_FD,
                EXTERNAL_MEMORY_HANDLE_DESC_WIN32_HANDLE, EXTERNAL_MEMORY_HANDLE_DESC_WIN32_NAME);
        assertEquals(24, EXTERNAL_MEMORY_HANDLE_DESC_SIZE);
        assertEquals(32, EXTERNAL_MEMORY_HANDLE_DESC_FLAGS);
        assertEquals(36, EXTERNAL_MEMORY_HANDLE_DESC_RESERVED);
        assertEquals(8, EXTERNAL_MEMORY_HANDLE_DESC.byteAlignment());
    }

    @Test
    void externalMemoryBufferDesc() {
        assertEquals(88, EXTERNAL_MEMORY_BUFFER_DESC.byteSize());
        assertEquals(0, EXTERNAL_MEMORY_BUFFER_DESC_OFFSET);
        assertEquals(8, EXTERNAL_MEMORY_BUFFER_DESC_SIZE);
        assertEquals(16, EXTERNAL_MEMORY_BUFFER_DESC_FLAGS);
        assertEquals(20, EXTERNAL_MEMORY_BUFFER_DESC_RESERVED);
    }

    @Test
    void externalSemaphoreHandleDesc() {
        assertEquals(96, EXTERNAL_SEMAPHORE_HANDLE_DESC.byteSize());
        assertTypeThenHandleUnion(EXTERNAL_SEMAPHORE_HANDLE_DESC_TYPE, EXTERNAL_SEMAPHORE_HANDLE_DESC_FD,
                EXTERNAL_SEMAPHORE_HANDLE_DESC_WIN32_HANDLE, EXTERNAL_SEMAPHORE_HANDLE_DESC_WIN32_NAME);
        assertEquals(24, EXTERNAL_SEMAPHORE_HANDLE_DESC_FLAGS);
        assertEquals(28, EXTERNAL_SEMAPHORE_HANDLE_DESC_RESERVED);
    }

    @Test
    void externalSemaphoreSignalParams() {
        assertSemaphoreParams(EXTERNAL_SEMAPHORE_SIGNAL_PARAMS, EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_FENCE_VALUE,
                EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_KEYED_MUTEX_KEY, EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_FLAGS,
                EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_RESERVED);
    }

    @Test
    void externalSemaphoreWaitParams() {
        assertSemaphoreParams(EXTERNAL_SEMAPHORE_WAIT_PARAMS, EXTERNAL_SEMAPHORE_WAIT_PARAMS_FENCE_VALUE,
                EXTERNAL_SEMAPHORE_WAIT_PARAMS_KEYED_MUTEX_KEY, EXTERNAL_SEMAPHORE_WAIT_PARAMS_FLAGS,
                EXTERNAL_SEMAPHORE_WAIT_PARAMS_RESERVED);
        assertEquals(24, EXTERNAL_SEMAPHORE_WAIT_PARAMS_KEYED_MUTEX_TIMEOUT_MS);
    }

    @Test
    void handleTypesMatchTheInteropReference() {
        assertEquals(1, CudaHandleTypes.MEMORY_OPAQUE_FD);
        assertEquals(2, CudaHandleTypes.MEMORY_OPAQUE_WIN32);
        assertEquals(4, CudaHandleTypes.MEMORY_D3D12_HEAP);
        assertEquals(5, CudaHandleTypes.MEMORY_D3D12_RESOURCE);
        assertEquals(9, CudaHandleTypes.MEMORY_DMABUF_FD);
        assertEquals(4, CudaHandleTypes.SEMAPHORE_D3D12_FENCE);
        assertEquals(9, CudaHandleTypes.SEMAPHORE_TIMELINE_SEMAPHORE_FD);
        assertEquals(10, CudaHandleTypes.SEMAPHORE_TIMELINE_SEMAPHORE_WIN32);
        assertEquals(1, CudaConstants.CUDA_EXTERNAL_MEMORY_DEDICATED);
    }

    /** Both handle descriptions: {@code int type}, then (8-aligned) the handle union: an fd, or win32's handle and name. */
    private static void assertTypeThenHandleUnion(long type, long fd, long win32Handle, long win32Name) {
        assertEquals(0, type);
        assertEquals(8, fd);
        assertEquals(8, win32Handle);
        assertEquals(16, win32Name);
    }

    /** Signal and wait parameters share one layout: 144 bytes, 72 of them {@code params}, then flags and reserved. */
    private static void assertSemaphoreParams(StructLayout params, long fenceValue, long keyedMutexKey, long flags,
                                              long reserved) {
        assertEquals(144, params.byteSize());
        assertEquals(72, params.select(MemoryLayout.PathElement.groupElement("params")).byteSize());
        assertEquals(0, fenceValue);
        assertEquals(16, keyedMutexKey);
        assertEquals(72, flags);
        assertEquals(76, reserved);
    }
}
