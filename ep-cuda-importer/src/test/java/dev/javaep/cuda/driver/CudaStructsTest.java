package dev.javaep.cuda.driver;

import static dev.javaep.cuda.driver.CudaStructs.*;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

/** Sizes and offsets against shared/reference/cuda-interop.md (CUDA 13.0 cuda.h, measured with gcc on x86-64). */
class CudaStructsTest {

    @Test
    void externalMemoryHandleDesc() {
        assertEquals(104, EXTERNAL_MEMORY_HANDLE_DESC.byteSize());
        assertEquals(0, EXTERNAL_MEMORY_HANDLE_DESC_TYPE);
        assertEquals(8, EXTERNAL_MEMORY_HANDLE_DESC_FD);
        assertEquals(8, EXTERNAL_MEMORY_HANDLE_DESC_WIN32_HANDLE);
        assertEquals(16, EXTERNAL_MEMORY_HANDLE_DESC_WIN32_NAME);
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
        assertEquals(0, EXTERNAL_SEMAPHORE_HANDLE_DESC_TYPE);
        assertEquals(8, EXTERNAL_SEMAPHORE_HANDLE_DESC_FD);
        assertEquals(8, EXTERNAL_SEMAPHORE_HANDLE_DESC_WIN32_HANDLE);
        assertEquals(16, EXTERNAL_SEMAPHORE_HANDLE_DESC_WIN32_NAME);
        assertEquals(24, EXTERNAL_SEMAPHORE_HANDLE_DESC_FLAGS);
        assertEquals(28, EXTERNAL_SEMAPHORE_HANDLE_DESC_RESERVED);
    }

    @Test
    void externalSemaphoreSignalParams() {
        assertEquals(144, EXTERNAL_SEMAPHORE_SIGNAL_PARAMS.byteSize());
        assertEquals(72, EXTERNAL_SEMAPHORE_SIGNAL_PARAMS.select(
                java.lang.foreign.MemoryLayout.PathElement.groupElement("params")).byteSize());
        assertEquals(0, EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_FENCE_VALUE);
        assertEquals(16, EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_KEYED_MUTEX_KEY);
        assertEquals(72, EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_FLAGS);
        assertEquals(76, EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_RESERVED);
    }

    @Test
    void externalSemaphoreWaitParams() {
        assertEquals(144, EXTERNAL_SEMAPHORE_WAIT_PARAMS.byteSize());
        assertEquals(72, EXTERNAL_SEMAPHORE_WAIT_PARAMS.select(
                java.lang.foreign.MemoryLayout.PathElement.groupElement("params")).byteSize());
        assertEquals(0, EXTERNAL_SEMAPHORE_WAIT_PARAMS_FENCE_VALUE);
        assertEquals(16, EXTERNAL_SEMAPHORE_WAIT_PARAMS_KEYED_MUTEX_KEY);
        assertEquals(24, EXTERNAL_SEMAPHORE_WAIT_PARAMS_KEYED_MUTEX_TIMEOUT_MS);
        assertEquals(72, EXTERNAL_SEMAPHORE_WAIT_PARAMS_FLAGS);
        assertEquals(76, EXTERNAL_SEMAPHORE_WAIT_PARAMS_RESERVED);
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
}
