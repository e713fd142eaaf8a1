/*
 * bench-interop's C baseline (row (c) of InteropBenchmark's frame-loop table): the frame loop that rows (a)
 * (ORT + javaep) and (b) (Java FFM, no ORT) run, driven from C with no ORT and no JVM work per frame.
 *
 * Per frame, the same host pacing as rows (a) and (b):
 *   vkSignalSemaphore(timeline, N)            the app's frame is ready (a host signal)
 *   cuWaitExternalSemaphoresAsync(N)          on the stream
 *   cuLaunchKernel(relu)                      the kernel JavaCuda launches for the Relu model
 *   cuSignalExternalSemaphoresAsync(N + 1)    on the stream
 *   cuStreamSynchronize                       as ORT's Run ends (NVIDIA's vkWaitSemaphores sleeps ~10 ms otherwise)
 *   vkWaitSemaphores(timeline, N + 1)         the host waits: the frame's time ends here
 * with N = first_value + 2 * frame + 1. Each frame is timed with CLOCK_MONOTONIC (what the JVM's
 * System.nanoTime reads on Linux).
 *
 * No CUDA or Vulkan headers: the few types and functions are declared here. libcuda.so.1 is dlopen'ed (the process
 * has it loaded already: dlopen returns the same library); the Vulkan entry points come from the caller
 * (vkGetDeviceProcAddr's results, as LWJGL holds them), so the calls go straight to the driver like LWJGL's.
 *
 * Build: cc -std=c11 -O2 -Wall -Wextra -shared -fPIC -o libframe_loop_baseline.so frame_loop_baseline.c -ldl
 */
#define _POSIX_C_SOURCE 200809L

#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* ---- CUDA driver API, declared by hand (cuda.h, CUDA 11.2+; the layouts are stable since 10.0) ---- */
typedef int CUresult;
typedef void *CUcontext;
typedef void *CUfunction;
typedef void *CUstream;
typedef void *CUexternalSemaphore;

/*
 * CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS and CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS are both 144 bytes with the timeline's
 * fence value first; everything after it (NvSciSync, keyed mutex, flags, reserved) stays zero for a timeline.
 */
typedef struct {
    unsigned long long fence_value;
    unsigned char zero[136];
} CudaSemaphoreParams;

_Static_assert(sizeof(CudaSemaphoreParams) == 144, "CUDA_EXTERNAL_SEMAPHORE_{SIGNAL,WAIT}_PARAMS are 144 bytes");

typedef CUresult (*CuCtxSetCurrent)(CUcontext);
typedef CUresult (*CuStreamSynchronize)(CUstream);
typedef CUresult (*CuLaunchKernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                                   CUstream, void **, void **);
typedef CUresult (*CuSignalExternalSemaphoresAsync)(const CUexternalSemaphore *, const CudaSemaphoreParams *,
                                                    unsigned, CUstream);
typedef CUresult (*CuWaitExternalSemaphoresAsync)(const CUexternalSemaphore *, const CudaSemaphoreParams *,
                                                  unsigned, CUstream);

/* ---- Vulkan 1.2 core, declared by hand (vulkan_core.h) ---- */
typedef int32_t VkResult;
typedef void *VkDevice;
typedef uint64_t VkSemaphore;
enum {
    VK_SUCCESS = 0,
    VK_TIMEOUT = 2,
    VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO = 1000207004,
    VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO = 1000207005
};

typedef struct {
    int32_t sType;
    const void *pNext;
    VkSemaphore semaphore;
    uint64_t value;
} VkSemaphoreSignalInfo;

typedef struct {
    int32_t sType;
    const void *pNext;
    uint32_t flags;
    uint32_t semaphoreCount;
    const VkSemaphore *pSemaphores;
    const uint64_t *pValues;
} VkSemaphoreWaitInfo;

typedef VkResult (*VkSignalSemaphore)(VkDevice, const VkSemaphoreSignalInfo *);
typedef VkResult (*VkWaitSemaphores)(VkDevice, const VkSemaphoreWaitInfo *, uint64_t);

/* ---- the loop ---- */

/* dlsym's object pointer as a function pointer, the way POSIX's dlsym page does it. */
static int resolve(void *library, const char *name, void *function_pointer, char *error, size_t error_size) {
    void *symbol = dlsym(library, name);
    if (symbol == NULL) {
        snprintf(error, error_size, "libcuda.so.1 has no %s", name);
        return 0;
    }
    memcpy(function_pointer, &symbol, sizeof symbol);
    return 1;
}

static int64_t now_nanos(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t) t.tv_sec * 1000000000 + t.tv_nsec;
}

/*
 * Runs `frames` frames of un_relu_f32_v4(out, in, n4) as described at the top; frame i's time in frame_nanos[i].
 * The timeline must be at first_value on entry; it is at first_value + 2 * frames on success.
 *
 * Returns 0, or a nonzero code with a one-line reason in error: 1 no libcuda.so.1 or a symbol missing, 2 a CUDA call
 * failed, 3 a Vulkan call failed, 4 the host wait timed out.
 */
int frame_loop(void *cuda_context, void *function, uint32_t grid_x, uint32_t block_x, void *stream, void *cuda_semaphore,
               uint64_t out_ptr, uint64_t in_ptr, uint64_t n4, void *vk_device, uint64_t vk_semaphore,
               void *vk_signal_semaphore, void *vk_wait_semaphores, uint64_t first_value, int32_t frames,
               uint64_t timeout_nanos, int64_t *frame_nanos, char *error, size_t error_size) {
    void *cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
    if (cuda == NULL) {
        cuda = dlopen("libcuda.so.1", RTLD_NOW);
    }
    if (cuda == NULL) {
        snprintf(error, error_size, "dlopen(libcuda.so.1): %s", dlerror());
        return 1;
    }
    CuCtxSetCurrent ctx_set_current;
    CuLaunchKernel launch_kernel;
    CuWaitExternalSemaphoresAsync wait_semaphores;
    CuSignalExternalSemaphoresAsync signal_semaphores;
    CuStreamSynchronize stream_synchronize;
    if (!resolve(cuda, "cuCtxSetCurrent", &ctx_set_current, error, error_size)
            || !resolve(cuda, "cuLaunchKernel", &launch_kernel, error, error_size)
            || !resolve(cuda, "cuWaitExternalSemaphoresAsync", &wait_semaphores, error, error_size)
            || !resolve(cuda, "cuSignalExternalSemaphoresAsync", &signal_semaphores, error, error_size)
            || !resolve(cuda, "cuStreamSynchronize", &stream_synchronize, error, error_size)) {
        dlclose(cuda);
        return 1;
    }
    VkSignalSemaphore signal_semaphore;
    VkWaitSemaphores wait_host;
    memcpy(&signal_semaphore, &vk_signal_semaphore, sizeof vk_signal_semaphore);
    memcpy(&wait_host, &vk_wait_semaphores, sizeof vk_wait_semaphores);

    int status = 0;
    CUresult result = ctx_set_current(cuda_context);
    if (result != 0) {
        snprintf(error, error_size, "cuCtxSetCurrent returned %d", result);
        status = 2;
    }
    CUexternalSemaphore semaphore = cuda_semaphore;
    CudaSemaphoreParams wait_params;
    CudaSemaphoreParams signal_params;
    memset(&wait_params, 0, sizeof wait_params);
    memset(&signal_params, 0, sizeof signal_params);
    void *arguments[] = {&out_ptr, &in_ptr, &n4};
    VkSemaphoreSignalInfo host_signal = {VK_STRUCTURE_TYPE_SEMAPHORE_SIGNAL_INFO, NULL, vk_semaphore, 0};
    uint64_t done_value = 0;
    VkSemaphoreWaitInfo host_wait = {VK_STRUCTURE_TYPE_SEMAPHORE_WAIT_INFO, NULL, 0, 1, &vk_semaphore, &done_value};

    for (int32_t frame = 0; frame < frames && status == 0; frame++) {
        uint64_t ready = first_value + 2 * (uint64_t) frame + 1;
        done_value = ready + 1;
        int64_t start = now_nanos();
        host_signal.value = ready;
        VkResult vk = signal_semaphore(vk_device, &host_signal);
        if (vk != VK_SUCCESS) {
            snprintf(error, error_size, "vkSignalSemaphore(%llu) returned %d at frame %d", (unsigned long long) ready,
                     (int) vk, (int) frame);
            status = 3;
            break;
        }
        const char *failed = NULL;
        wait_params.fence_value = ready;
        signal_params.fence_value = done_value;
        if ((result = wait_semaphores(&semaphore, &wait_params, 1, stream)) != 0) {
            failed = "cuWaitExternalSemaphoresAsync";
        } else if ((result = launch_kernel(function, grid_x, 1, 1, block_x, 1, 1, 0, stream, arguments, NULL)) != 0) {
            failed = "cuLaunchKernel";
        } else if ((result = signal_semaphores(&semaphore, &signal_params, 1, stream)) != 0) {
            failed = "cuSignalExternalSemaphoresAsync";
        } else if ((result = stream_synchronize(stream)) != 0) {
            /* as the Java loops: the host waits only for a value already signalled (NVIDIA's driver sleeps ~10 ms
               in vkWaitSemaphores on a value CUDA has yet to signal) */
            failed = "cuStreamSynchronize";
        }
        if (failed != NULL) {
            snprintf(error, error_size, "%s returned %d at frame %d", failed, result, (int) frame);
            status = 2;
            break;
        }
        vk = wait_host(vk_device, &host_wait, timeout_nanos);
        if (vk != VK_SUCCESS) {
            snprintf(error, error_size, "vkWaitSemaphores(%llu) %s %d at frame %d", (unsigned long long) done_value,
                     vk == VK_TIMEOUT ? "timed out: VkResult" : "returned", (int) vk, (int) frame);
            status = vk == VK_TIMEOUT ? 4 : 3;
            break;
        }
        frame_nanos[frame] = now_nanos() - start;
    }
    dlclose(cuda); /* only drops our reference: the process keeps the driver loaded */
    return status;
}
