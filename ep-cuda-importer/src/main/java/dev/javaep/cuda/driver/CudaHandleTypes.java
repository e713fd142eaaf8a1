package dev.javaep.cuda.driver;

/**
 * {@code CUexternalMemoryHandleType} and {@code CUexternalSemaphoreHandleType} ({@code cuda.h}): what
 * kind of OS handle {@link CudaDriver#importExternalMemoryWin32} and friends are given. The two enums
 * overlap in values but not in meaning, hence the {@code MEMORY_}/{@code SEMAPHORE_} prefixes.
 */
public final class CudaHandleTypes {
    private CudaHandleTypes() {}

    // CUexternalMemoryHandleType
    /** A POSIX fd from Vulkan ({@code VK_EXTERNAL_MEMORY_HANDLE_TYPE_OPAQUE_FD_BIT}) or CUDA VMM; owned by the driver after import. */
    public static final int MEMORY_OPAQUE_FD = 1;
    /** An NT handle from Vulkan ({@code ..._OPAQUE_WIN32_BIT}); not transferred, the app closes it. */
    public static final int MEMORY_OPAQUE_WIN32 = 2;
    public static final int MEMORY_OPAQUE_WIN32_KMT = 3;
    /** An {@code ID3D12Heap} shared handle; import flags 0. */
    public static final int MEMORY_D3D12_HEAP = 4;
    /** A committed {@code ID3D12Resource} shared handle; needs {@link CudaConstants#CUDA_EXTERNAL_MEMORY_DEDICATED}. */
    public static final int MEMORY_D3D12_RESOURCE = 5;
    public static final int MEMORY_D3D11_RESOURCE = 6;
    public static final int MEMORY_D3D11_RESOURCE_KMT = 7;
    public static final int MEMORY_NVSCIBUF = 8;
    /** Tegra only. */
    public static final int MEMORY_DMABUF_FD = 9;

    // CUexternalSemaphoreHandleType
    public static final int SEMAPHORE_OPAQUE_FD = 1;
    public static final int SEMAPHORE_OPAQUE_WIN32 = 2;
    public static final int SEMAPHORE_OPAQUE_WIN32_KMT = 3;
    /** An {@code ID3D12Fence} shared handle: a 64-bit fence value. */
    public static final int SEMAPHORE_D3D12_FENCE = 4;
    public static final int SEMAPHORE_D3D11_FENCE = 5;
    public static final int SEMAPHORE_NVSCISYNC = 6;
    public static final int SEMAPHORE_D3D11_KEYED_MUTEX = 7;
    public static final int SEMAPHORE_D3D11_KEYED_MUTEX_KMT = 8;
    /** A Vulkan timeline semaphore exported as an opaque fd (Linux). */
    public static final int SEMAPHORE_TIMELINE_SEMAPHORE_FD = 9;
    /** A Vulkan timeline semaphore exported as an NT handle (Windows). */
    public static final int SEMAPHORE_TIMELINE_SEMAPHORE_WIN32 = 10;
}
