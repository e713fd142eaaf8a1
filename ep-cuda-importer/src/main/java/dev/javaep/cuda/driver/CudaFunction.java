package dev.javaep.cuda.driver;

import static dev.javaep.cuda.driver.CudaFunction.Types.CUDEVICE;
import static dev.javaep.cuda.driver.CudaFunction.Types.CURESULT;
import static dev.javaep.cuda.driver.CudaFunction.Types.DEVPTR;
import static dev.javaep.cuda.driver.CudaFunction.Types.HANDLE;
import static dev.javaep.cuda.driver.CudaFunction.Types.INT;
import static dev.javaep.cuda.driver.CudaFunction.Types.PTR;
import static dev.javaep.cuda.driver.CudaFunction.Types.SEGMENT;
import static dev.javaep.cuda.driver.CudaFunction.Types.SIZE_T;
import static dev.javaep.cuda.driver.CudaFunction.Types.UCHAR;
import static dev.javaep.cuda.driver.CudaFunction.Types.UINT;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Every CUDA driver function javaep calls: the C API name (the constant), the exported symbol it binds
 * and the C signature. This is the single place the driver ABI is declared.
 *
 * <p><b>Why versioned symbols.</b> {@code cuda.h} renames most functions whose ABI changed
 * ({@code #define cuMemAlloc cuMemAlloc_v2}); the plain names still exported by {@code libcuda} are the
 * old ABI (32-bit sizes and device pointers for {@code cuMemAlloc}), kept for binaries built against
 * CUDA 3.x. A C program compiled today calls the {@code _v2} symbol, so javaep binds exactly what the
 * header maps to. The {@code _ptsz}/{@code _ptds} per-thread-default-stream variants are never bound:
 * javaep always passes an explicit stream. Where a newer version has an older sibling with the same
 * signature, the older one is a fallback for old drivers ({@link #fallbacks()}).
 *
 * <p><b>Why pointers are {@code JAVA_LONG}.</b> CUDA handles, device pointers and out-parameter
 * pointers are passed as 64-bit integers: on both ABIs javaep targets (x86-64 System V and Windows
 * x64) a pointer and a 64-bit integer travel in the same register, and the hot paths then box no
 * {@code MemorySegment} per argument. Where a caller hands us a {@code MemorySegment} ({@link #SEGMENT})
 * the parameter stays {@code ADDRESS}, so FFM keeps that memory alive for the duration of the call.
 *
 * <p>{@link #since()} is the CUDA version (e.g. 11020 = 11.2) whose driver first exported the symbol
 * (or its fallback); it only feeds error messages, since a symbol's presence is what decides.
 */
public enum CudaFunction {
    // ---- initialization, errors, version
    cuInit("cuInit", 2000, UINT),
    cuDriverGetVersion("cuDriverGetVersion", 2020, PTR),
    cuGetErrorName("cuGetErrorName", 6000, CURESULT, PTR),
    cuGetErrorString("cuGetErrorString", 6000, CURESULT, PTR),

    // ---- devices
    cuDeviceGetCount("cuDeviceGetCount", 2000, PTR),
    cuDeviceGet("cuDeviceGet", 2000, PTR, INT),
    cuDeviceGetName("cuDeviceGetName", 2000, PTR, INT, CUDEVICE),
    /** {@code #define cuDeviceGetUuid cuDeviceGetUuid_v2} (11.4: MIG-aware); the plain name is 9.2. */
    cuDeviceGetUuid("cuDeviceGetUuid_v2", List.of("cuDeviceGetUuid"), 9020, PTR, CUDEVICE),
    cuDeviceGetPCIBusId("cuDeviceGetPCIBusId", 4010, PTR, INT, CUDEVICE),
    /** Windows only: {@code (char luid[8], unsigned int *deviceNodeMask, CUdevice)}. */
    cuDeviceGetLuid("cuDeviceGetLuid", 10000, PTR, PTR, CUDEVICE),
    cuDeviceGetAttribute("cuDeviceGetAttribute", 2000, PTR, INT, CUDEVICE),
    cuDeviceTotalMem("cuDeviceTotalMem_v2", 3020, PTR, CUDEVICE),

    // ---- contexts
    cuDevicePrimaryCtxRetain("cuDevicePrimaryCtxRetain", 7000, PTR, CUDEVICE),
    cuDevicePrimaryCtxRelease("cuDevicePrimaryCtxRelease_v2", 11000, CUDEVICE),
    cuCtxSetCurrent("cuCtxSetCurrent", 4000, HANDLE),
    cuCtxGetCurrent("cuCtxGetCurrent", 4000, PTR),
    cuCtxSynchronize("cuCtxSynchronize", 2000),
    /** {@code (int *canAccessPeer, CUdevice dev, CUdevice peerDev)}. */
    cuDeviceCanAccessPeer("cuDeviceCanAccessPeer", 4000, PTR, CUDEVICE, CUDEVICE),
    /** {@code (CUcontext peerContext, unsigned int flags)}: the current context gets access to the peer's memory. */
    cuCtxEnablePeerAccess("cuCtxEnablePeerAccess", 4000, HANDLE, UINT),

    // ---- streams and events
    cuStreamCreate("cuStreamCreate", 2000, PTR, UINT),
    cuStreamDestroy("cuStreamDestroy_v2", 4000, HANDLE),
    cuStreamSynchronize("cuStreamSynchronize", 2000, HANDLE),
    cuStreamQuery("cuStreamQuery", 2000, HANDLE),
    cuStreamWaitEvent("cuStreamWaitEvent", 3020, HANDLE, HANDLE, UINT),
    cuEventCreate("cuEventCreate", 2000, PTR, UINT),
    cuEventRecord("cuEventRecord", 2000, HANDLE, HANDLE),
    cuEventSynchronize("cuEventSynchronize", 2000, HANDLE),
    cuEventQuery("cuEventQuery", 2000, HANDLE),
    cuEventDestroy("cuEventDestroy_v2", 4000, HANDLE),
    /** {@code #define cuEventElapsedTime cuEventElapsedTime_v2} (CUDA 12.8+ headers); older drivers export only the plain name. */
    cuEventElapsedTime("cuEventElapsedTime_v2", List.of("cuEventElapsedTime"), 2000, PTR, HANDLE, HANDLE),

    // ---- memory
    cuMemAlloc("cuMemAlloc_v2", 3020, PTR, SIZE_T),
    cuMemFree("cuMemFree_v2", 3020, DEVPTR),
    cuMemAllocAsync("cuMemAllocAsync", 11020, PTR, SIZE_T, HANDLE),
    cuMemFreeAsync("cuMemFreeAsync", 11020, DEVPTR, HANDLE),
    cuMemAllocHost("cuMemAllocHost_v2", 3020, PTR, SIZE_T),
    cuMemFreeHost("cuMemFreeHost", 2000, PTR),
    cuMemGetInfo("cuMemGetInfo_v2", 3020, PTR, PTR),
    cuDeviceGetDefaultMemPool("cuDeviceGetDefaultMemPool", 11020, PTR, CUDEVICE),
    cuMemPoolSetAttribute("cuMemPoolSetAttribute", 11020, HANDLE, INT, PTR),
    cuMemPoolTrimTo("cuMemPoolTrimTo", 11020, HANDLE, SIZE_T),
    cuMemcpyAsync("cuMemcpyAsync", 4000, DEVPTR, DEVPTR, SIZE_T, HANDLE),
    /** {@code (CUdeviceptr dst, CUcontext dstCtx, CUdeviceptr src, CUcontext srcCtx, size_t bytes, CUstream)}. */
    cuMemcpyPeerAsync("cuMemcpyPeerAsync", 4000, DEVPTR, HANDLE, DEVPTR, HANDLE, SIZE_T, HANDLE),
    cuMemcpyHtoDAsync("cuMemcpyHtoDAsync_v2", 3020, DEVPTR, PTR, SIZE_T, HANDLE),
    cuMemcpyDtoHAsync("cuMemcpyDtoHAsync_v2", 3020, PTR, DEVPTR, SIZE_T, HANDLE),
    cuMemcpyDtoDAsync("cuMemcpyDtoDAsync_v2", 3020, DEVPTR, DEVPTR, SIZE_T, HANDLE),
    cuMemcpyHtoD("cuMemcpyHtoD_v2", 3020, DEVPTR, SEGMENT, SIZE_T),
    cuMemcpyDtoH("cuMemcpyDtoH_v2", 3020, SEGMENT, DEVPTR, SIZE_T),
    cuMemsetD8Async("cuMemsetD8Async", 3020, DEVPTR, UCHAR, SIZE_T, HANDLE),
    cuMemsetD32Async("cuMemsetD32Async", 3020, DEVPTR, UINT, SIZE_T, HANDLE),

    // ---- modules and launches
    /** {@code (CUmodule*, const void *image, unsigned numOptions, CUjit_option*, void **optionValues)}. */
    cuModuleLoadDataEx("cuModuleLoadDataEx", 2010, PTR, PTR, UINT, PTR, PTR),
    cuModuleGetFunction("cuModuleGetFunction", 2000, PTR, HANDLE, PTR),
    cuModuleUnload("cuModuleUnload", 2000, HANDLE),
    /** {@code (CUfunction, grid xyz, block xyz, sharedMemBytes, CUstream, void **kernelParams, void **extra)}. */
    cuLaunchKernel("cuLaunchKernel", 4000, HANDLE, UINT, UINT, UINT, UINT, UINT, UINT, UINT, HANDLE, SEGMENT, SEGMENT),

    // ---- graphs (optional: a driver without them has groups launch eagerly, CudaDriver#hasGraphs)
    /** {@code (CUstream, CUstreamCaptureMode)}; {@code #define cuStreamBeginCapture cuStreamBeginCapture_v2} (10.1). */
    cuStreamBeginCapture("cuStreamBeginCapture_v2", 10010, HANDLE, INT),
    /** {@code (CUstream, CUgraph *)}. */
    cuStreamEndCapture("cuStreamEndCapture", 10000, HANDLE, PTR),
    /** {@code (CUgraphExec *, CUgraph, unsigned long long flags)}. */
    cuGraphInstantiateWithFlags("cuGraphInstantiateWithFlags", 11040, PTR, HANDLE, SIZE_T),
    cuGraphLaunch("cuGraphLaunch", 10000, HANDLE, HANDLE),
    cuGraphExecDestroy("cuGraphExecDestroy", 10000, HANDLE),
    cuGraphDestroy("cuGraphDestroy", 10000, HANDLE),

    // ---- external resource interop
    cuImportExternalMemory("cuImportExternalMemory", 10000, PTR, PTR),
    cuExternalMemoryGetMappedBuffer("cuExternalMemoryGetMappedBuffer", 10000, PTR, HANDLE, PTR),
    cuDestroyExternalMemory("cuDestroyExternalMemory", 10000, HANDLE),
    cuImportExternalSemaphore("cuImportExternalSemaphore", 10000, PTR, PTR),
    /** {@code (const CUexternalSemaphore*, const ..._SIGNAL_PARAMS*, unsigned numExtSems, CUstream)}. */
    cuSignalExternalSemaphoresAsync("cuSignalExternalSemaphoresAsync", 10000, PTR, PTR, UINT, HANDLE),
    cuWaitExternalSemaphoresAsync("cuWaitExternalSemaphoresAsync", 10000, PTR, PTR, UINT, HANDLE),
    cuDestroyExternalSemaphore("cuDestroyExternalSemaphore", 10000, HANDLE);

    private final String symbol;
    private final List<String> fallbacks;
    private final int since;
    private final FunctionDescriptor descriptor;

    CudaFunction(String symbol, int since, MemoryLayout... parameters) {
        this(symbol, List.of(), since, parameters);
    }

    CudaFunction(String symbol, List<String> fallbacks, int since, MemoryLayout... parameters) {
        this.symbol = symbol;
        this.fallbacks = fallbacks;
        this.since = since;
        this.descriptor = FunctionDescriptor.of(Types.CURESULT, parameters);
    }

    /** The C API name as written in C code, e.g. {@code cuMemAlloc}. */
    public String apiName() {
        return name();
    }

    /** The exported symbol bound first: what {@code cuda.h} maps the API name to, e.g. {@code cuMemAlloc_v2}. */
    public String symbol() {
        return symbol;
    }

    /** Older exported names with the same signature, tried in order when {@link #symbol()} is missing. */
    public List<String> fallbacks() {
        return fallbacks;
    }

    /** CUDA version (1000 * major + 10 * minor) of the first driver that exports this function. */
    public int since() {
        return since;
    }

    /** The C signature; every driver function returns {@code CUresult}. */
    public FunctionDescriptor descriptor() {
        return descriptor;
    }

    /** C types of the driver API as FFM layouts (a holder class: enum constants cannot see static fields). */
    static final class Types {
        private Types() {}

        static final ValueLayout.OfInt CURESULT = JAVA_INT;
        static final ValueLayout.OfInt INT = JAVA_INT;
        static final ValueLayout.OfInt UINT = JAVA_INT;
        static final ValueLayout.OfByte UCHAR = JAVA_BYTE;
        /** {@code CUdevice} is an {@code int} ordinal-like handle, not a pointer. */
        static final ValueLayout.OfInt CUDEVICE = JAVA_INT;
        static final ValueLayout.OfLong SIZE_T = JAVA_LONG;
        /** {@code CUdeviceptr}: {@code unsigned long long} since the {@code _v2} ABI. */
        static final ValueLayout.OfLong DEVPTR = JAVA_LONG;
        /** An opaque handle ({@code CUcontext}, {@code CUstream}, {@code CUevent}, ...), passed as its address. */
        static final ValueLayout.OfLong HANDLE = JAVA_LONG;
        /** Any other pointer we own (out-parameters, structs in scratch memory), passed as its address. */
        static final ValueLayout.OfLong PTR = JAVA_LONG;
        /** A pointer to caller-supplied memory, passed as a {@code MemorySegment} so FFM keeps it alive. */
        static final ValueLayout SEGMENT = ADDRESS;
    }
}
