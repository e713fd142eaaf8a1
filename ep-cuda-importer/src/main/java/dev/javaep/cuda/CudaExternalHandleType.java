package dev.javaep.cuda;

import dev.javaep.cuda.driver.CudaConstants;
import dev.javaep.cuda.driver.CudaHandleTypes;
import dev.javaep.spi.ExternalMemoryType;
import dev.javaep.spi.ExternalSemaphoreType;
import java.util.Optional;

/**
 * How each ORT external handle type reaches the CUDA driver: the {@code CUexternal*HandleType}, the
 * import flags, and the OS on which such handles exist. One table for both OSes, so the Windows
 * mapping is compiled and unit-tested on Linux too.
 *
 * @param windows whether the handle is a Win32 HANDLE (else a POSIX fd)
 */
record CudaExternalHandleType(int cudaType, int flags, boolean windows) {
    static Optional<CudaExternalHandleType> of(ExternalMemoryType type) {
        return Optional.ofNullable(switch (type) {
            // A committed resource is a dedicated allocation: CUDA requires the flag for it.
            case D3D12_RESOURCE -> new CudaExternalHandleType(CudaHandleTypes.MEMORY_D3D12_RESOURCE,
                    CudaConstants.CUDA_EXTERNAL_MEMORY_DEDICATED, true);
            case D3D12_HEAP -> new CudaExternalHandleType(CudaHandleTypes.MEMORY_D3D12_HEAP, 0, true);
            // ORT documents both VK types as non-dedicated allocations.
            case VK_MEMORY_WIN32 -> new CudaExternalHandleType(CudaHandleTypes.MEMORY_OPAQUE_WIN32, 0, true);
            case VK_MEMORY_OPAQUE_FD -> new CudaExternalHandleType(CudaHandleTypes.MEMORY_OPAQUE_FD, 0, false);
            case HOST_ALLOCATION -> null;
        });
    }

    static CudaExternalHandleType of(ExternalSemaphoreType type) {
        return switch (type) {
            case D3D12_FENCE -> new CudaExternalHandleType(CudaHandleTypes.SEMAPHORE_D3D12_FENCE, 0, true);
            case VK_TIMELINE_SEMAPHORE_WIN32 ->
                    new CudaExternalHandleType(CudaHandleTypes.SEMAPHORE_TIMELINE_SEMAPHORE_WIN32, 0, true);
            case VK_TIMELINE_SEMAPHORE_OPAQUE_FD ->
                    new CudaExternalHandleType(CudaHandleTypes.SEMAPHORE_TIMELINE_SEMAPHORE_FD, 0, false);
        };
    }
}
