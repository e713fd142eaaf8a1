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
 * Several GPUs: the fake keeps, per device, the calls made while its context was current, its live device and
 * pinned allocations and its primary context's retain count. Streams
 * and events created in device 1's context get handles 0x100 above device 0's, so the fake knows their device: a
 * launch, stream-ordered allocation or event record on a stream of another device than the current context is
 * refused with CUDA_ERROR_INVALID_HANDLE (copies are not: CUDA documents that a copy may be issued to another
 * device's stream). cuDeviceCanAccessPeer answers what the test configured; cuCtxEnablePeerAccess follows its
 * documented errors; cuMemcpyPeerAsync copies with or without peer access, as CUDA does (the driver stages a copy
 * between GPUs without peer access through host memory), and counts which of the two it was. An fd "exported" by
 * one device (fake_export) is refused by the other's cuImportExternalMemory with CUDA_ERROR_INVALID_VALUE.
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
#include <sys/stat.h>

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

/* ---- several GPUs: what happened in each device's context (index 0, 1; 2 = no context current) ---- */
enum {
    Q_CTX_CALLS, Q_LIVE_DEVICE_ALLOCS, Q_LIVE_HOST_ALLOCS, Q_RETAINS, Q_PEER_COPIES_DIRECT, Q_PEER_COPIES_STAGED,
    Q_WRONG_CONTEXT, Q_PEER_ENABLED, Q_FOREIGN_FREES, Q_LIVE_DEVICE_BYTES, Q_COUNT
};
static long long g_device_stats[3][Q_COUNT];
static int g_peer_capable = 1;
static int g_peer_enabled[2][2]; /* [context's device][peer device] */

static int ctx_index(void *ctx) {
    uintptr_t c = (uintptr_t) ctx;
    return c == 0xC000 + 10 ? 0 : c == 0xC000 + 11 ? 1 : -1;
}
static int current_index(void) {
    int i = ctx_index(g_current_ctx);
    return i < 0 ? 2 : i;
}

/* The device a stream or event handle of this fake belongs to, or -1 for a handle it did not create. */
static int handle_device(void *h, uintptr_t base) {
    uintptr_t v = (uintptr_t) h;
    return v >= base && v < base + 0x200 ? (int) ((v - base) >> 8) : -1;
}
/* A stream (or event) of another device than the current context's: refused, and counted. */
static int wrong_context(int device) {
    if (device < 0 || current_index() == 2 || device == current_index()) return 0; /* tests of single calls set none */
    g_device_stats[current_index()][Q_WRONG_CONTEXT]++;
    return 1;
}

/* Live allocations, with the device whose context was current when they were made. */
#define MAX_LIVE 4096
static struct { uintptr_t p; int device; int host; size_t bytes; } g_live[MAX_LIVE];
static void track(uintptr_t p, int host, size_t bytes) {
    for (int i = 0; i < MAX_LIVE; i++) {
        if (!g_live[i].p) {
            g_live[i].p = p; g_live[i].device = current_index(); g_live[i].host = host; g_live[i].bytes = bytes;
            g_device_stats[g_live[i].device][host ? Q_LIVE_HOST_ALLOCS : Q_LIVE_DEVICE_ALLOCS]++;
            if (!host) g_device_stats[g_live[i].device][Q_LIVE_DEVICE_BYTES] += (long long) bytes;
            return;
        }
    }
}
static void untrack(uintptr_t p) {
    for (int i = 0; i < MAX_LIVE; i++) {
        if (g_live[i].p == p) {
            int d = g_live[i].device;
            g_device_stats[d][g_live[i].host ? Q_LIVE_HOST_ALLOCS : Q_LIVE_DEVICE_ALLOCS]--;
            if (!g_live[i].host) g_device_stats[d][Q_LIVE_DEVICE_BYTES] -= (long long) g_live[i].bytes;
            if (d != current_index()) g_device_stats[current_index()][Q_FOREIGN_FREES]++;
            g_live[i].p = 0;
            return;
        }
    }
}

/* What happened on device `device` (0, 1; 2 = with no context current) for `what` (a Q_ key). */
long long fake_device_stat(int what, int device) {
    return what >= 0 && what < Q_COUNT && device >= 0 && device < 3 ? g_device_stats[device][what] : -1;
}

/* Zeroes the call and copy counters (live allocations, retains and peer access stay: they are state). */
void fake_reset_device_counters(void) {
    for (int d = 0; d < 3; d++) {
        g_device_stats[d][Q_CTX_CALLS] = 0;
        g_device_stats[d][Q_PEER_COPIES_DIRECT] = 0;
        g_device_stats[d][Q_PEER_COPIES_STAGED] = 0;
        g_device_stats[d][Q_WRONG_CONTEXT] = 0;
        g_device_stats[d][Q_FOREIGN_FREES] = 0;
    }
}

/* What cuDeviceCanAccessPeer answers between the two devices (NVLink/PCIe P2P present or not). */
void fake_set_peer_capable(int capable) { g_peer_capable = capable; }

/* Files "exported" by a device, by inode: another device's context cannot import them. */
static struct { dev_t dev; ino_t ino; int device; } g_exports[16];
void fake_export(int fd, int device) {
    struct stat st;
    if (fstat(fd, &st) != 0) return;
    for (int i = 0; i < 16; i++) {
        if (g_exports[i].ino == 0 || (g_exports[i].dev == st.st_dev && g_exports[i].ino == st.st_ino)) {
            g_exports[i].dev = st.st_dev; g_exports[i].ino = st.st_ino; g_exports[i].device = device;
            return;
        }
    }
}
static int exporting_device(int fd) {
    struct stat st;
    if (fstat(fd, &st) != 0) return -1;
    for (int i = 0; i < 16; i++) {
        if (g_exports[i].ino && g_exports[i].dev == st.st_dev && g_exports[i].ino == st.st_ino) return g_exports[i].device;
    }
    return -1;
}

#define STICKY() do { \
        g_device_stats[current_index()][Q_CTX_CALLS]++; \
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
    case 201: return "CUDA_ERROR_INVALID_CONTEXT";
    case 217: return "CUDA_ERROR_PEER_ACCESS_UNSUPPORTED";
    case 218: return "CUDA_ERROR_INVALID_PTX";
    case 400: return "CUDA_ERROR_INVALID_HANDLE";
    case 500: return "CUDA_ERROR_NOT_FOUND";
    case 600: return "CUDA_ERROR_NOT_READY";
    case 700: return "CUDA_ERROR_ILLEGAL_ADDRESS";
    case 704: return "CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED";
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
    g_device_stats[d - 10][Q_RETAINS]++;
    return 0;
}
CUresult cuDevicePrimaryCtxRelease_v2(CUdevice d) {
    if (bad_device(d)) return 101;
    if (g_device_stats[d - 10][Q_RETAINS] > 0 && --g_device_stats[d - 10][Q_RETAINS] == 0) {
        /* The context is destroyed: the peer access it had, and others had to it, goes with it. */
        for (int i = 0; i < 2; i++) {
            g_peer_enabled[d - 10][i] = g_peer_enabled[i][d - 10] = 0;
            g_device_stats[i][Q_PEER_ENABLED] &= ~(1 << (d - 10));
        }
        g_device_stats[d - 10][Q_PEER_ENABLED] = 0;
    }
    return 0;
}
CUresult cuDeviceCanAccessPeer(int *can, CUdevice d, CUdevice peer) {
    if (bad_device(d) || bad_device(peer)) return 101;
    *can = d != peer && g_peer_capable;
    return 0;
}
CUresult cuCtxEnablePeerAccess(void *peer_ctx, unsigned int flags) {
    STICKY();
    int self = ctx_index(g_current_ctx), peer = ctx_index(peer_ctx);
    if (self < 0 || peer < 0) return 201;
    if (flags) return 1;
    if (self == peer || !g_peer_capable) return 217;
    if (g_peer_enabled[self][peer]) return 704;
    g_peer_enabled[self][peer] = 1;
    g_device_stats[self][Q_PEER_ENABLED] |= 1 << peer;
    return 0;
}
CUresult cuCtxSetCurrent(void *ctx) { g_current_ctx = ctx; g_last[K_CTX] = (long long) (uintptr_t) ctx; return 0; }
CUresult cuCtxGetCurrent(void **ctx) { STICKY(); *ctx = g_current_ctx; return 0; }
/* What was synchronized, in order (the first 64 since fake_reset_synchronizations): a stream's handle for
 * cuStreamSynchronize (0: the NULL stream), -1 for cuCtxSynchronize. Tests of what a release waits for read it. */
#define SYNC_LOG 64
static long long g_syncs[SYNC_LOG];
static int g_sync_count = 0;
static void log_sync(long long what) {
    if (g_sync_count < SYNC_LOG) g_syncs[g_sync_count] = what;
    g_sync_count++;
}
void fake_reset_synchronizations(void) { g_sync_count = 0; }
int fake_synchronization_count(void) { return g_sync_count; }
long long fake_synchronization(int i) { return i >= 0 && i < g_sync_count && i < SYNC_LOG ? g_syncs[i] : -2; }

CUresult cuCtxSynchronize(void) { STICKY(); log_sync(-1); return 0; }

/* ---- streams and events: handles echo their flags; BUSY_HANDLE is never complete ---- */
CUresult cuStreamCreate(void **s, unsigned int flags) {
    STICKY();
    *s = (void *) (uintptr_t) (0x5000 + flags + (current_index() == 1 ? 0x100 : 0));
    return 0;
}
CUresult cuStreamDestroy_v2(void *s) { STICKY(); return s ? 0 : 400; }
CUresult cuStreamSynchronize(void *s) { STICKY(); log_sync((long long) (uintptr_t) s); return 0; }
CUresult cuStreamQuery(void *s) { return (uintptr_t) s == BUSY_HANDLE ? 600 : 0; }
CUresult cuStreamWaitEvent(void *s, void *e, unsigned int flags) {
    STICKY();
    g_last[K_STREAM] = (long long) (uintptr_t) s;
    g_last[K_EVENT] = (long long) (uintptr_t) e;
    g_last[K_FLAGS] = flags;
    return 0;
}
CUresult cuEventCreate(void **e, unsigned int flags) {
    STICKY();
    *e = (void *) (uintptr_t) (0xE000 + flags + (current_index() == 1 ? 0x100 : 0));
    return 0;
}
CUresult cuEventRecord(void *e, void *s) {
    STICKY();
    if (wrong_context(handle_device(s, 0x5000)) || wrong_context(handle_device(e, 0xE000))) return 400;
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
    track((uintptr_t) *p, 0, n);
    return 0;
}
/* Mapped external buffers are fake addresses at 0xD0000000 + offset (see cuExternalMemoryGetMappedBuffer). */
#define FAKE_MAPPED_BASE 0xD0000000ull
#define FAKE_MAPPED_END 0xE0000000ull
CUresult cuMemFree_v2(CUdeviceptr p) {
    STICKY();
    if (p >= FAKE_MAPPED_BASE && p < FAKE_MAPPED_END) return 0;
    untrack((uintptr_t) p);
    free((void *) (uintptr_t) p);
    return 0;
}
CUresult cuMemAllocAsync(CUdeviceptr *p, size_t n, void *stream) {
    STICKY();
    if (wrong_context(handle_device(stream, 0x5000))) return 400;
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
CUresult cuMemAllocHost_v2(void **p, size_t n) { STICKY(); *p = malloc(n); track((uintptr_t) *p, 1, n); return 0; }
CUresult cuMemFreeHost(void *p) { STICKY(); untrack((uintptr_t) p); free(p); return 0; }
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
CUresult cuMemcpyPeerAsync(CUdeviceptr dst, void *dst_ctx, CUdeviceptr src, void *src_ctx, size_t n, void *s) {
    STICKY();
    int to = ctx_index(dst_ctx), from = ctx_index(src_ctx);
    if (to < 0 || from < 0) return 201;
    int direct = g_peer_capable && (g_peer_enabled[to][from] || g_peer_enabled[from][to]);
    g_device_stats[current_index()][direct ? Q_PEER_COPIES_DIRECT : Q_PEER_COPIES_STAGED]++;
    return copy(dst, (void *) (uintptr_t) src, n, s);
}
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
    if (wrong_context(handle_device(stream, 0x5000))) return 400;
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
    if (d->type == 1 && exporting_device(d->handle.fd) >= 0 && exporting_device(d->handle.fd) != current_index()) {
        return 1; /* an export of the other GPU */
    }
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

#ifdef FAKE_GRAPHS
/* ---- graphs (built with -DFAKE_GRAPHS only: FakeCuda.buildWithGraphs): a capture records nothing (the fake's kernels
 * ran on the host as they were queued); a launch of the executable counts and does nothing else ---- */
#define GRAPH ((uintptr_t) 0x6A0)
#define EXEC_BASE ((uintptr_t) 0x6E0000)
static long long g_graph_launches = 0;
static long long g_live_execs = 0;
static long long g_execs_made = 0;
long long fake_graph_launches(void) { return g_graph_launches; }
long long fake_live_graph_execs(void) { return g_live_execs; }
CUresult cuStreamBeginCapture_v2(void *s, int mode) { STICKY(); (void) s; return mode == 2 ? 0 : 1; }
CUresult cuStreamEndCapture(void *s, void **graph) { STICKY(); (void) s; *graph = (void *) GRAPH; return 0; }
CUresult cuGraphInstantiateWithFlags(void **exec, void *graph, unsigned long long flags) {
    STICKY();
    if ((uintptr_t) graph != GRAPH || flags) return 1;
    *exec = (void *) (EXEC_BASE + (uintptr_t) ++g_execs_made);
    g_live_execs++;
    return 0;
}
CUresult cuGraphLaunch(void *exec, void *s) {
    STICKY();
    (void) s;
    if ((uintptr_t) exec <= EXEC_BASE) return 400;
    g_graph_launches++;
    return 0;
}
CUresult cuGraphExecDestroy(void *exec) {
    STICKY();
    if ((uintptr_t) exec <= EXEC_BASE) return 400;
    g_live_execs--;
    return 0;
}
CUresult cuGraphDestroy(void *graph) { STICKY(); return (uintptr_t) graph == GRAPH ? 0 : 400; }
#endif
