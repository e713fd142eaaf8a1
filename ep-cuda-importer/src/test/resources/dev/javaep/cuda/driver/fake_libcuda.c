/*
 * A fault-injecting stand-in for libcuda.so.1, compiled by CudaDriverFakeLibraryTest with gcc.
 *
 * Why: CI machines have no GPU and no driver, yet the binding's ~60 downcalls (argument order, widths,
 * struct offsets, versioned symbol names, error paths) should fail there when they are wrong. This
 * library exports the driver functions javaep binds with the same C signatures, does the host-memory
 * equivalent of each (a "device pointer" is a malloc'ed pointer), records what it was passed, and
 * injects failures a real driver cannot be made to produce on demand (cuInit errors, missing
 * cuGetErrorName, JIT errors). CudaDriverGpuTest covers the real driver.
 *
 * Kernels run on the host: add_one, the EP's contiguous elementwise kernels (ew_{add,sub,mul,div}_f32_contig
 * and _contig4, un_relu_f32 and _v4) so compiled groups of real nodes run here, and fault_store, which
 * "faults" like a kernel storing to address 8: from its launch on, the context it ran in is lost and
 * every context-bound call in it returns CUDA_ERROR_ILLEGAL_ADDRESS (cuCtxGetCurrent included, the
 * pessimistic reading of the driver's documentation), while the other device's context keeps working.
 *
 * Deliberately NOT exported, to exercise optional-symbol handling: cuDeviceGetLuid, cuMemPoolTrimTo,
 * cuEventElapsedTime_v2 (only the pre-12.8 plain name), cuDeviceGetUuid (only _v2).
 *
 * The structs are copied from CUDA 13.0's cuda.h so that gcc, not javaep, decides their layout: the
 * test then checks that the fields javaep wrote land in the members the driver reads.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int CUresult;
typedef int CUdevice;
typedef unsigned long long CUdeviceptr;

typedef struct {
    int type;
    union {
        int fd;
        struct { void *handle; const void *name; } win32;
        const void *nvSciBufObject;
    } handle;
    unsigned long long size;
    unsigned int flags;
    unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_HANDLE_DESC;

typedef struct {
    unsigned long long offset;
    unsigned long long size;
    unsigned int flags;
    unsigned int reserved[16];
} CUDA_EXTERNAL_MEMORY_BUFFER_DESC;

typedef struct {
    int type;
    union {
        int fd;
        struct { void *handle; const void *name; } win32;
        const void *nvSciSyncObj;
    } handle;
    unsigned int flags;
    unsigned int reserved[16];
} CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC;

typedef struct {
    struct {
        struct { unsigned long long value; } fence;
        union { void *fence; unsigned long long reserved; } nvSciSync;
        struct { unsigned long long key; } keyedMutex;
        unsigned int reserved[12];
    } params;
    unsigned int flags;
    unsigned int reserved[16];
} CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS;

typedef struct {
    struct {
        struct { unsigned long long value; } fence;
        union { void *fence; unsigned long long reserved; } nvSciSync;
        struct { unsigned long long key; unsigned int timeoutMs; } keyedMutex;
        unsigned int reserved[10];
    } params;
    unsigned int flags;
    unsigned int reserved[16];
} CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS;

/* ---- fault injection and recording (keys mirrored in CudaDriverFakeLibraryTest) ---- */
enum {
    K_TYPE, K_FD, K_HANDLE, K_NAME, K_SIZE, K_FLAGS, K_NONZERO_RESERVED, K_OFFSET, K_FENCE_VALUE,
    K_NUM_SEMS, K_SEM, K_STREAM, K_GRID, K_BLOCK, K_SHARED_MEM, K_RELEASE_THRESHOLD, K_EVENT, K_CTX,
    K_ASYNC_ALLOCS, K_ASYNC_FREES, K_ASYNC_ALLOC_SIZE, /* counts of cuMemAllocAsync/cuMemFreeAsync, the latest size */
    K_COUNT
};
static long long g_last[K_COUNT];
static int g_init_result = 0;
static int g_error_names = 1;
static void *g_current_ctx = 0;
/* A sticky error: every context-bound call made while g_sticky_ctx is current returns it. */
static int g_sticky_result = 0;
static void *g_sticky_ctx = 0;
/* Calls that reached the fake while the current context was lost (fail-fast means none after the first). */
static long long g_calls_in_lost_context = 0;

void fake_configure(int init_result, int error_names) {
    g_init_result = init_result;
    g_error_names = error_names;
}

/* Makes the current context lost with `result` (0 clears any loss, for the next test). */
void fake_lose_context(int result) {
    g_sticky_result = result;
    g_sticky_ctx = result ? g_current_ctx : 0;
    g_calls_in_lost_context = 0;
}

long long fake_calls_in_lost_context(void) { return g_calls_in_lost_context; }

#define STICKY() do { \
        if (g_sticky_result && g_current_ctx == g_sticky_ctx) { g_calls_in_lost_context++; return g_sticky_result; } \
    } while (0)

long long fake_last(int key) {
    return key >= 0 && key < K_COUNT ? g_last[key] : -1;
}

#define BUSY_HANDLE ((uintptr_t) 0xB05)

static int nonzero(const unsigned int *words, int n) {
    int count = 0;
    for (int i = 0; i < n; i++) count += words[i] != 0;
    return count;
}

/* ---- errors, init, version ---- */
static const char *name_of(CUresult r) {
    switch (r) {
    case 0: return "CUDA_SUCCESS";
    case 1: return "CUDA_ERROR_INVALID_VALUE";
    case 2: return "CUDA_ERROR_OUT_OF_MEMORY";
    case 100: return "CUDA_ERROR_NO_DEVICE";
    case 101: return "CUDA_ERROR_INVALID_DEVICE";
    case 218: return "CUDA_ERROR_INVALID_PTX";
    case 400: return "CUDA_ERROR_INVALID_HANDLE";
    case 500: return "CUDA_ERROR_NOT_FOUND";
    case 600: return "CUDA_ERROR_NOT_READY";
    case 700: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    default: return 0;
    }
}

CUresult cuGetErrorName(CUresult error, const char **pStr) {
    const char *s = g_error_names ? name_of(error) : 0;
    *pStr = s;
    return s ? 0 : 1;
}

CUresult cuGetErrorString(CUresult error, const char **pStr) {
    if (!g_error_names || !name_of(error)) { *pStr = 0; return 1; }
    switch (error) {
    case 2: *pStr = "out of memory (fake driver)"; break;
    case 100: *pStr = "no CUDA-capable device is detected"; break;
    case 700: *pStr = "an illegal memory access was encountered"; break;
    default: *pStr = "fake driver error"; break;
    }
    return 0;
}

CUresult cuInit(unsigned int flags) { return flags != 0 ? 1 : g_init_result; }
CUresult cuDriverGetVersion(int *v) { *v = 13000; return 0; }

/* ---- devices: ordinals 0 and 1 are CUdevice 10 and 11 ---- */
static int bad_device(CUdevice d) { return d < 10 || d > 11; }

CUresult cuDeviceGetCount(int *count) { *count = 2; return 0; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) {
    if (ordinal < 0 || ordinal > 1) return 101;
    *d = ordinal + 10;
    return 0;
}
CUresult cuDeviceGetName(char *name, int len, CUdevice d) {
    if (bad_device(d)) return 101;
    snprintf(name, len, "Fake GPU %d", d);
    return 0;
}
CUresult cuDeviceGetUuid_v2(unsigned char *uuid, CUdevice d) {
    if (bad_device(d)) return 101;
    for (int i = 0; i < 16; i++) uuid[i] = (unsigned char) (i * 16 + d);
    return 0;
}
CUresult cuDeviceGetPCIBusId(char *id, int len, CUdevice d) {
    if (bad_device(d)) return 101;
    snprintf(id, len, "0000:%02X:00.0", 0x3B + d - 10);
    return 0;
}
CUresult cuDeviceGetAttribute(int *v, int attribute, CUdevice d) {
    if (bad_device(d)) return 101;
    switch (attribute) {
    case 16: *v = 132; return 0;       /* MULTIPROCESSOR_COUNT */
    case 36: *v = 2619000; return 0;   /* MEMORY_CLOCK_RATE */
    case 37: *v = 5120; return 0;      /* GLOBAL_MEMORY_BUS_WIDTH */
    case 75: *v = 9; return 0;         /* COMPUTE_CAPABILITY_MAJOR */
    case 76: *v = 0; return 0;         /* COMPUTE_CAPABILITY_MINOR */
    default: return 1;
    }
}
CUresult cuDeviceTotalMem_v2(size_t *bytes, CUdevice d) {
    if (bad_device(d)) return 101;
    *bytes = 80ull << 30;
    return 0;
}

/* ---- contexts ---- */
CUresult cuDevicePrimaryCtxRetain(void **ctx, CUdevice d) {
    if (bad_device(d)) return 101;
    *ctx = (void *) (uintptr_t) (0xC000 + d);
    return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) { return bad_device(d) ? 101 : 0; }
CUresult cuCtxSetCurrent(void *ctx) { g_current_ctx = ctx; g_last[K_CTX] = (long long) (uintptr_t) ctx; return 0; }
CUresult cuCtxGetCurrent(void **ctx) { STICKY(); *ctx = g_current_ctx; return 0; }
CUresult cuCtxSynchronize(void) { STICKY(); return 0; }

/* ---- streams and events: handles echo their flags; BUSY_HANDLE is never complete ---- */
CUresult cuStreamCreate(void **s, unsigned int flags) { STICKY(); *s = (void *) (uintptr_t) (0x5000 + flags); return 0; }
CUresult cuStreamDestroy_v2(void *s) { STICKY(); return s ? 0 : 400; }
CUresult cuStreamSynchronize(void *s) { (void) s; STICKY(); return 0; }
CUresult cuStreamQuery(void *s) { return (uintptr_t) s == BUSY_HANDLE ? 600 : 0; }
CUresult cuStreamWaitEvent(void *s, void *e, unsigned int flags) {
    STICKY();
    g_last[K_STREAM] = (long long) (uintptr_t) s;
    g_last[K_EVENT] = (long long) (uintptr_t) e;
    g_last[K_FLAGS] = flags;
    return 0;
}
CUresult cuEventCreate(void **e, unsigned int flags) { STICKY(); *e = (void *) (uintptr_t) (0xE000 + flags); return 0; }
CUresult cuEventRecord(void *e, void *s) {
    STICKY();
    g_last[K_EVENT] = (long long) (uintptr_t) e;
    g_last[K_STREAM] = (long long) (uintptr_t) s;
    return 0;
}
CUresult cuEventSynchronize(void *e) { (void) e; STICKY(); return 0; }
CUresult cuEventQuery(void *e) { return (uintptr_t) e == BUSY_HANDLE ? 600 : 0; }
CUresult cuEventDestroy_v2(void *e) { STICKY(); return e ? 0 : 400; }
CUresult cuEventElapsedTime(float *ms, void *start, void *end) {
    if (!start || !end) return 400;
    *ms = 1.5f;
    return 0;
}

/* ---- memory: device pointers are host pointers ---- */
CUresult cuMemAlloc_v2(CUdeviceptr *p, size_t n) {
    STICKY();
    if (n > (1ull << 40)) return 2;
    *p = (CUdeviceptr) (uintptr_t) malloc(n);
    return 0;
}
/* Mapped external buffers are fake addresses at 0xD0000000 + offset (see cuExternalMemoryGetMappedBuffer). */
#define FAKE_MAPPED_BASE 0xD0000000ull
#define FAKE_MAPPED_END 0xE0000000ull
CUresult cuMemFree_v2(CUdeviceptr p) {
    STICKY();
    if (p >= FAKE_MAPPED_BASE && p < FAKE_MAPPED_END) return 0;
    free((void *) (uintptr_t) p);
    return 0;
}
CUresult cuMemAllocAsync(CUdeviceptr *p, size_t n, void *stream) {
    STICKY();
    g_last[K_ASYNC_ALLOCS]++;
    g_last[K_ASYNC_ALLOC_SIZE] = (long long) n;
    g_last[K_STREAM] = (long long) (uintptr_t) stream;
    return cuMemAlloc_v2(p, n);
}
CUresult cuMemFreeAsync(CUdeviceptr p, void *stream) {
    STICKY();
    g_last[K_ASYNC_FREES]++;
    g_last[K_STREAM] = (long long) (uintptr_t) stream;
    return cuMemFree_v2(p);
}
CUresult cuMemAllocHost_v2(void **p, size_t n) { STICKY(); *p = malloc(n); return 0; }
CUresult cuMemFreeHost(void *p) { STICKY(); free(p); return 0; }
CUresult cuMemGetInfo_v2(size_t *free_bytes, size_t *total_bytes) {
    *free_bytes = 70ull << 30;
    *total_bytes = 80ull << 30;
    return 0;
}
CUresult cuDeviceGetDefaultMemPool(void **pool, CUdevice d) {
    if (bad_device(d)) return 101;
    *pool = (void *) (uintptr_t) (0x900 + d);
    return 0;
}
CUresult cuMemPoolSetAttribute(void *pool, int attribute, void *value) {
    if (!pool || attribute != 4) return 1;
    g_last[K_RELEASE_THRESHOLD] = (long long) *(unsigned long long *) value;
    return 0;
}
static CUresult copy(CUdeviceptr dst, const void *src, size_t n, void *stream) {
    STICKY();
    g_last[K_STREAM] = (long long) (uintptr_t) stream;
    memcpy((void *) (uintptr_t) dst, src, n);
    return 0;
}
CUresult cuMemcpyAsync(CUdeviceptr dst, CUdeviceptr src, size_t n, void *s) { return copy(dst, (void *) (uintptr_t) src, n, s); }
CUresult cuMemcpyHtoDAsync_v2(CUdeviceptr dst, const void *src, size_t n, void *s) { return copy(dst, src, n, s); }
CUresult cuMemcpyDtoHAsync_v2(void *dst, CUdeviceptr src, size_t n, void *s) { return copy((CUdeviceptr) (uintptr_t) dst, (void *) (uintptr_t) src, n, s); }
CUresult cuMemcpyDtoDAsync_v2(CUdeviceptr dst, CUdeviceptr src, size_t n, void *s) { return copy(dst, (void *) (uintptr_t) src, n, s); }
CUresult cuMemcpyHtoD_v2(CUdeviceptr dst, const void *src, size_t n) { return copy(dst, src, n, 0); }
CUresult cuMemcpyDtoH_v2(void *dst, CUdeviceptr src, size_t n) { return copy((CUdeviceptr) (uintptr_t) dst, (void *) (uintptr_t) src, n, 0); }
CUresult cuMemsetD8Async(CUdeviceptr dst, unsigned char value, size_t n, void *s) {
    STICKY();
    g_last[K_STREAM] = (long long) (uintptr_t) s;
    memset((void *) (uintptr_t) dst, value, n);
    return 0;
}
CUresult cuMemsetD32Async(CUdeviceptr dst, unsigned int value, size_t n, void *s) {
    STICKY();
    g_last[K_STREAM] = (long long) (uintptr_t) s;
    if (dst % 4) return 1;
    unsigned int *words = (unsigned int *) (uintptr_t) dst;
    for (size_t i = 0; i < n; i++) words[i] = value;
    return 0;
}

/* ---- modules and launches: kernels run on the host (see the header comment) ---- */
#define MODULE ((uintptr_t) 0x3000)
#define ADD_ONE ((uintptr_t) 0xF00)
#define FAULT_STORE ((uintptr_t) 0xF01)
#define EW_BASE ((uintptr_t) 0xF10)   /* + op * 2 + vec4, op in add, sub, mul, div */
#define RELU_BASE ((uintptr_t) 0xF20) /* + vec4 */

static const char *const EW_NAMES[] = {
    "ew_add_f32_contig", "ew_add_f32_contig4", "ew_sub_f32_contig", "ew_sub_f32_contig4",
    "ew_mul_f32_contig", "ew_mul_f32_contig4", "ew_div_f32_contig", "ew_div_f32_contig4",
};

CUresult cuModuleLoadDataEx(void **module, const void *image, unsigned int n, int *options, void **values) {
    STICKY();
    char *log = 0;
    size_t log_size = 0;
    int size_index = -1;
    for (unsigned int i = 0; i < n; i++) {
        if (options[i] == 5) log = (char *) values[i];
        if (options[i] == 6) { log_size = (size_t) (uintptr_t) values[i]; size_index = (int) i; }
    }
    if (strstr((const char *) image, "invalid")) {
        if (log && log_size > 0 && size_index >= 0) {
            snprintf(log, log_size, "ptxas application ptx input, line 1; fatal   : fake parse error near 'invalid'");
            values[size_index] = (void *) (uintptr_t) strlen(log);
        }
        return 218;
    }
    *module = (void *) MODULE;
    return 0;
}
CUresult cuModuleGetFunction(void **function, void *module, const char *name) {
    if ((uintptr_t) module != MODULE) return 400;
    if (strcmp(name, "add_one") == 0) { *function = (void *) ADD_ONE; return 0; }
    if (strcmp(name, "fault_store") == 0) { *function = (void *) FAULT_STORE; return 0; }
    for (int i = 0; i < 8; i++) {
        if (strcmp(name, EW_NAMES[i]) == 0) { *function = (void *) (EW_BASE + i); return 0; }
    }
    if (strcmp(name, "un_relu_f32") == 0) { *function = (void *) RELU_BASE; return 0; }
    if (strcmp(name, "un_relu_f32_v4") == 0) { *function = (void *) (RELU_BASE + 1); return 0; }
    return 500;
}
CUresult cuModuleUnload(void *module) { STICKY(); return (uintptr_t) module == MODULE ? 0 : 400; }
CUresult cuLaunchKernel(void *f, unsigned int gx, unsigned int gy, unsigned int gz,
                        unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared_mem,
                        void *stream, void **params, void **extra) {
    STICKY();
    uintptr_t fn = (uintptr_t) f;
    if (fn != ADD_ONE && fn != FAULT_STORE && !(fn >= EW_BASE && fn < EW_BASE + 8) && fn != RELU_BASE && fn != RELU_BASE + 1) {
        return 400;
    }
    if (extra || !params || gy != 1 || gz != 1 || by != 1 || bz != 1) return 1;
    g_last[K_GRID] = gx;
    g_last[K_BLOCK] = bx;
    g_last[K_SHARED_MEM] = shared_mem;
    g_last[K_STREAM] = (long long) (uintptr_t) stream;
    if (fn == FAULT_STORE) {
        /* The launch succeeds; the fault surfaces at the next call in the context, as on a GPU. */
        g_sticky_result = 700;
        g_sticky_ctx = g_current_ctx;
        return 0;
    }
    if (fn == ADD_ONE) {
        float *data = *(float **) params[0];
        unsigned int count = *(unsigned int *) params[1];
        for (unsigned long long i = 0; i < count && i < (unsigned long long) gx * bx; i++) data[i] += 1.0f;
        return 0;
    }
    float *out = *(float **) params[0];
    if (fn == RELU_BASE || fn == RELU_BASE + 1) {
        const float *in = *(const float **) params[1];
        unsigned long long n = *(unsigned long long *) params[2] * (fn == RELU_BASE + 1 ? 4 : 1);
        for (unsigned long long i = 0; i < n; i++) out[i] = in[i] < 0 ? 0.0f : in[i];
        return 0;
    }
    const float *a = *(const float **) params[1];
    const float *b = *(const float **) params[2];
    int op = (int) ((fn - EW_BASE) / 2);
    unsigned long long n = *(unsigned long long *) params[3] * ((fn - EW_BASE) % 2 ? 4 : 1);
    for (unsigned long long i = 0; i < n; i++) {
        out[i] = op == 0 ? a[i] + b[i] : op == 1 ? a[i] - b[i] : op == 2 ? a[i] * b[i] : a[i] / b[i];
    }
    return 0;
}

/* ---- external resource interop: record what the driver would read ---- */
CUresult cuImportExternalMemory(void **out, const CUDA_EXTERNAL_MEMORY_HANDLE_DESC *d) {
    STICKY();
    g_last[K_TYPE] = d->type;
    g_last[K_FD] = d->type == 1 ? d->handle.fd : -1;
    g_last[K_HANDLE] = d->type == 1 ? 0 : (long long) (uintptr_t) d->handle.win32.handle;
    g_last[K_NAME] = d->type == 1 ? 0 : (long long) (uintptr_t) d->handle.win32.name;
    g_last[K_SIZE] = (long long) d->size;
    g_last[K_FLAGS] = d->flags;
    g_last[K_NONZERO_RESERVED] = nonzero(d->reserved, 16);
    if (g_last[K_NONZERO_RESERVED]) return 1;
    *out = (void *) (uintptr_t) 0xE3E3;
    return 0;
}
CUresult cuExternalMemoryGetMappedBuffer(CUdeviceptr *p, void *ext, const CUDA_EXTERNAL_MEMORY_BUFFER_DESC *d) {
    if ((uintptr_t) ext != 0xE3E3) return 400;
    g_last[K_OFFSET] = (long long) d->offset;
    g_last[K_SIZE] = (long long) d->size;
    g_last[K_FLAGS] = d->flags;
    g_last[K_NONZERO_RESERVED] = nonzero(d->reserved, 16);
    if (d->flags || g_last[K_NONZERO_RESERVED]) return 1;
    *p = FAKE_MAPPED_BASE + d->offset;
    return 0;
}
CUresult cuDestroyExternalMemory(void *ext) { return (uintptr_t) ext == 0xE3E3 ? 0 : 400; }
CUresult cuImportExternalSemaphore(void **out, const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC *d) {
    STICKY();
    int fd_type = d->type == 1 || d->type == 9;
    g_last[K_TYPE] = d->type;
    g_last[K_FD] = fd_type ? d->handle.fd : -1;
    g_last[K_HANDLE] = fd_type ? 0 : (long long) (uintptr_t) d->handle.win32.handle;
    g_last[K_NAME] = fd_type ? 0 : (long long) (uintptr_t) d->handle.win32.name;
    g_last[K_FLAGS] = d->flags;
    g_last[K_NONZERO_RESERVED] = nonzero(d->reserved, 16);
    if (g_last[K_NONZERO_RESERVED]) return 1;
    *out = (void *) (uintptr_t) 0x5E3;
    return 0;
}
CUresult cuSignalExternalSemaphoresAsync(void *const *sems, const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *p,
                                         unsigned int n, void *stream) {
    g_last[K_NUM_SEMS] = n;
    g_last[K_SEM] = (long long) (uintptr_t) sems[0];
    g_last[K_FENCE_VALUE] = (long long) p->params.fence.value;
    g_last[K_FLAGS] = p->flags;
    g_last[K_NONZERO_RESERVED] = nonzero(p->reserved, 16) + nonzero(p->params.reserved, 12)
            + (p->params.keyedMutex.key != 0) + (p->params.nvSciSync.reserved != 0);
    g_last[K_STREAM] = (long long) (uintptr_t) stream;
    return g_last[K_NONZERO_RESERVED] ? 1 : 0;
}
CUresult cuWaitExternalSemaphoresAsync(void *const *sems, const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *p,
                                       unsigned int n, void *stream) {
    g_last[K_NUM_SEMS] = n;
    g_last[K_SEM] = (long long) (uintptr_t) sems[0];
    g_last[K_FENCE_VALUE] = (long long) p->params.fence.value;
    g_last[K_FLAGS] = p->flags;
    g_last[K_NONZERO_RESERVED] = nonzero(p->reserved, 16) + nonzero(p->params.reserved, 10)
            + (p->params.keyedMutex.key != 0) + (p->params.keyedMutex.timeoutMs != 0)
            + (p->params.nvSciSync.reserved != 0);
    g_last[K_STREAM] = (long long) (uintptr_t) stream;
    return g_last[K_NONZERO_RESERVED] ? 1 : 0;
}
CUresult cuDestroyExternalSemaphore(void *sem) { return (uintptr_t) sem == 0x5E3 ? 0 : 400; }
