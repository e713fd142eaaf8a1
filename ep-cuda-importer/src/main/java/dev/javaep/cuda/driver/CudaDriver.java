package dev.javaep.cuda.driver;

import static dev.javaep.cuda.driver.CudaStructs.EXTERNAL_MEMORY_BUFFER_DESC;
import static dev.javaep.cuda.driver.CudaStructs.EXTERNAL_MEMORY_HANDLE_DESC;
import static dev.javaep.cuda.driver.CudaStructs.EXTERNAL_SEMAPHORE_HANDLE_DESC;
import static dev.javaep.cuda.driver.CudaStructs.EXTERNAL_SEMAPHORE_SIGNAL_PARAMS;
import static dev.javaep.cuda.driver.CudaStructs.EXTERNAL_SEMAPHORE_WAIT_PARAMS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.ort.Platform;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The CUDA driver API ({@code libcuda.so.1} / {@code nvcuda.dll}) through FFM, one method per driver
 * call, with handles and device pointers as {@code long} addresses. The driver API rather than the
 * runtime ({@code libcudart}) because the driver ships with every NVIDIA driver install, while the
 * runtime would have to be bundled per CUDA version.
 *
 * <p>One instance per process ({@link #load()}). Every method is thread-safe; like the C API, calls
 * act on the calling thread's current context ({@link #ctxSetCurrent}). Failures throw
 * {@link CudaException} naming the exported symbol and the {@code CUresult}; a function this driver
 * does not export throws {@link UnsupportedOperationException} naming it (see {@link #supports}).
 *
 * <p>Hot paths (per ORT Run: async alloc/free, async copies, launches, events, semaphores) allocate
 * nothing: downcall handles are bound once per symbol, out-parameters and the small structs the
 * driver reads are written to a per-thread scratch segment, and pointers travel as {@code long}.
 */
public final class CudaDriver {
    /** {@code CU_STREAM_NON_BLOCKING}: the stream does not synchronize with the legacy default stream. */
    public static final int STREAM_NON_BLOCKING = CudaConstants.CU_STREAM_NON_BLOCKING;
    /** {@code CU_EVENT_DEFAULT}: a timing event. */
    public static final int EVENT_DEFAULT = CudaConstants.CU_EVENT_DEFAULT;
    /** {@code CU_EVENT_DISABLE_TIMING}: cheapest event, for ordering only. */
    public static final int EVENT_DISABLE_TIMING = CudaConstants.CU_EVENT_DISABLE_TIMING;

    /** What {@code cuMemGetInfo} reports for the current context's device. */
    public record MemoryInfo(long freeBytes, long totalBytes) {}

    /**
     * A context a sticky error made unusable for the rest of the process: the first such error and the
     * call that returned it (often not the call that caused it: a kernel fault surfaces at the next call
     * that waits on or queues behind the kernel).
     *
     * @param function the exported symbol that returned the error, e.g. {@code cuStreamSynchronize}
     * @param cause    why the error is fatal to the context, e.g. {@code "a kernel faulted"}
     */
    public record ContextLoss(long context, String function, int result, String errorName, String cause) {}

    private static final Object LOAD_LOCK = new Object();
    private static volatile CudaDriver loaded;
    /** Guarded by LOAD_LOCK: why the first load failed; a later load() fails the same way without retrying. */
    private static String loadFailure;

    // Per-thread scratch: out-parameters at OUT0/OUT1, a one-element CUexternalSemaphore array, the
    // thread's last context, then one struct (the largest is 144 bytes). Offsets keep every field naturally aligned.
    private static final long OUT0 = 0;
    private static final long OUT1 = 8;
    private static final long SEMAPHORE_ARRAY = 16;
    /** The context this thread last made current through {@link #ctxSetCurrent}: whose loss an error records. */
    private static final long LAST_CONTEXT = 24;
    private static final long STRUCT = 32;
    private static final long STRUCT_MAX_BYTES = 160;
    private static final long SCRATCH_BYTES = STRUCT + STRUCT_MAX_BYTES;
    private static final MemorySegment ZEROS = Arena.global().allocate(STRUCT_MAX_BYTES, 16);
    private static final ThreadLocal<MemorySegment> SCRATCH =
            ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(SCRATCH_BYTES, 16));

    private static final int CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED = 704;
    private static final int NAME_BYTES = 256;
    private static final int PCI_BUS_ID_BYTES = 64;
    private static final int JIT_LOG_BYTES = 16 * 1024;

    private final CudaSymbols symbols;
    private final int driverVersion;
    /** Contexts a sticky error made unusable, by handle; entries stay for the life of the process. */
    private final Map<Long, ContextLoss> lostContexts = new ConcurrentHashMap<>();
    /** Whether {@link #lostContexts} is non-empty: the check on every entry point costs one volatile read. */
    private volatile boolean anyContextLost;

    /** @param visibleDevices the process's {@code CUDA_VISIBLE_DEVICES} (null when unset), named when cuInit finds no GPU */
    private CudaDriver(CudaSymbols symbols, String visibleDevices) throws CudaUnavailableException {
        this.symbols = symbols;
        String library = symbols.library().description();
        if (!symbols.has(CudaFunction.cuInit)) {
            throw new CudaUnavailableException(library + " exports no cuInit: it is not an NVIDIA CUDA driver library");
        }
        int result = invokeInt(CudaFunction.cuInit, 0);
        if (result != CudaConstants.CUDA_SUCCESS) {
            throw new CudaUnavailableException("cuInit failed: " + describe(result)
                    + initHint(result, visibleDevices));
        }
        MemorySegment s = scratch();
        try {
            check(CudaFunction.cuDriverGetVersion,
                    (int) symbols.handle(CudaFunction.cuDriverGetVersion).invokeExact(s.address() + OUT0));
        } catch (CudaException | UnsupportedOperationException e) {
            throw new CudaUnavailableException(library + ": " + e.getMessage(), e);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        this.driverVersion = s.get(JAVA_INT, OUT0);
    }

    /**
     * The process's driver: loads the library and calls {@code cuInit(0)} on first use, then returns the
     * same instance. A failure is remembered too: CUDA cannot come back within a process.
     *
     * @throws CudaUnavailableException no driver library, or {@code cuInit} failed (no device, wrong driver)
     */
    public static CudaDriver load() throws CudaUnavailableException {
        CudaDriver driver = loaded;
        if (driver != null) {
            return driver;
        }
        synchronized (LOAD_LOCK) {
            if (loaded != null) {
                return loaded;
            }
            if (loadFailure != null) {
                throw new CudaUnavailableException(loadFailure);
            }
            try {
                loaded = new CudaDriver(new CudaSymbols(CudaLibrary.find()), System.getenv(VISIBLE_DEVICES));
                return loaded;
            } catch (CudaUnavailableException e) {
                loadFailure = e.getMessage();
                throw e;
            }
        }
    }

    /** A driver over a given library, not cached: for tests that load a fault-injecting library. */
    static CudaDriver open(CudaLibrary library) throws CudaUnavailableException {
        return open(library, System.getenv(VISIBLE_DEVICES));
    }

    /** As {@link #open(CudaLibrary)}, as if {@code CUDA_VISIBLE_DEVICES} were {@code visibleDevices} (null: unset). */
    static CudaDriver open(CudaLibrary library, String visibleDevices) throws CudaUnavailableException {
        return new CudaDriver(new CudaSymbols(library), visibleDevices);
    }

    /** The variable that hides GPUs from CUDA in a process. */
    public static final String VISIBLE_DEVICES = "CUDA_VISIBLE_DEVICES";

    /**
     * What to do about a cuInit failure a new user meets: a library that loads but no usable GPU. Each names the
     * fix, not only the cause.
     *
     * @param visibleDevices the process's {@code CUDA_VISIBLE_DEVICES}, or null when unset
     */
    static String initHint(int result, String visibleDevices) {
        return switch (result) {
            case 34 -> "; the library loaded is the CUDA toolkit's stub, not the driver:"
                    + " install the NVIDIA driver or put its libcuda.so.1 ahead of the stub on the library path";
            case 100 -> noDeviceHint(visibleDevices);
            case 803 -> "; the driver library does not match the loaded kernel module (a driver update without a reboot,"
                    + " or a container's libcuda from another driver version): reboot or reinstall the NVIDIA driver,"
                    + " or run the container with the host's driver library (NVIDIA Container Toolkit)";
            case 804 -> "; the forward-compatibility libcuda in use does not support this GPU: put the system driver's"
                    + " libcuda.so.1 first (remove the cuda-compat directory from LD_LIBRARY_PATH)";
            case 999 -> "; the driver could not start: check that nvidia-smi works and that the nvidia-uvm kernel module"
                    + " is loaded (sudo modprobe nvidia-uvm)";
            default -> "";
        };
    }

    /**
     * Why a driver that loads sees no GPU, and the fix: {@code CUDA_VISIBLE_DEVICES} hiding them (set but empty, or
     * naming none that exists), or none given to this machine or container.
     *
     * @param visibleDevices the process's {@code CUDA_VISIBLE_DEVICES}, or null when unset
     */
    public static String noDeviceHint(String visibleDevices) {
        if (visibleDevices != null) {
            return "; " + VISIBLE_DEVICES + " is set to '" + visibleDevices + "' in this process, which hides every GPU"
                    + " it does not name: unset it, or name a GPU that exists (e.g. " + VISIBLE_DEVICES + "=0;"
                    + " nvidia-smi -L lists them)";
        }
        return "; no GPU is visible to this process: check that nvidia-smi lists one, and in a container start it with"
                + " GPU access (docker run --gpus all, with the NVIDIA Container Toolkit)";
    }

    // ---- driver and errors ------------------------------------------------------------------

    /** {@code cuDriverGetVersion}: the newest CUDA version this driver supports, e.g. 13000 for 13.0. */
    public int driverVersion() {
        return driverVersion;
    }

    /** What was loaded, e.g. {@code libcuda.so.1} or {@code libcuda.so.1 (/usr/local/nvidia/lib64/libcuda.so.1)}. */
    public String libraryDescription() {
        return symbols.library().description();
    }

    /** Whether this driver exports the function (its versioned symbol or a fallback). */
    public boolean supports(CudaFunction function) {
        return symbols.has(function);
    }

    /** The exported name bound for a function, e.g. {@code cuEventElapsedTime} on a driver without {@code _v2}. */
    public String boundSymbol(CudaFunction function) {
        return symbols.boundName(function);
    }

    /** {@code cuGetErrorName}, or the built-in table when the driver cannot answer. */
    public String errorName(int result) {
        String name = errorText(CudaFunction.cuGetErrorName, result);
        return name != null ? name : CudaErrors.name(result);
    }

    /** {@code cuGetErrorString}, or the built-in table when the driver cannot answer. */
    public String errorString(int result) {
        String text = errorText(CudaFunction.cuGetErrorString, result);
        return text != null ? text : CudaErrors.description(result);
    }

    private String describe(int result) {
        return errorName(result) + " (" + result + "): " + errorString(result);
    }

    private String errorText(CudaFunction function, int result) {
        if (!symbols.has(function)) {
            return null;
        }
        try {
            MemorySegment s = scratch();
            s.set(JAVA_LONG, OUT0, 0L);
            int r = (int) symbols.handle(function).invokeExact(result, s.address() + OUT0);
            long text = s.get(JAVA_LONG, OUT0);
            return r == CudaConstants.CUDA_SUCCESS && text != 0 ? cString(text) : null;
        } catch (Throwable t) {
            return null;
        }
    }

    // ---- devices ----------------------------------------------------------------------------

    /** {@code cuDeviceGetCount}. */
    public int deviceCount() {
        MemorySegment s = scratch();
        check(CudaFunction.cuDeviceGetCount, invokeLong(CudaFunction.cuDeviceGetCount, s.address() + OUT0));
        return s.get(JAVA_INT, OUT0);
    }

    /** {@code cuDeviceGet}: the {@code CUdevice} of an ordinal. */
    public int device(int ordinal) {
        MemorySegment s = scratch();
        check(CudaFunction.cuDeviceGet, invoke(CudaFunction.cuDeviceGet, s.address() + OUT0, ordinal));
        return s.get(JAVA_INT, OUT0);
    }

    /** {@code cuDeviceGetAttribute}, for attributes beyond those {@link #deviceInfo} reads ({@code CU_DEVICE_ATTRIBUTE_*} in {@link CudaConstants}). */
    public int deviceAttribute(int device, int attribute) {
        MemorySegment s = scratch();
        check(CudaFunction.cuDeviceGetAttribute,
                invoke(CudaFunction.cuDeviceGetAttribute, s.address() + OUT0, attribute, device));
        return s.get(JAVA_INT, OUT0);
    }

    /** Everything {@link CudaDeviceInfo} holds for one ordinal. */
    public CudaDeviceInfo deviceInfo(int ordinal) {
        int device = device(ordinal);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment name = arena.allocate(NAME_BYTES);
            check(CudaFunction.cuDeviceGetName,
                    invoke(CudaFunction.cuDeviceGetName, name.address(), NAME_BYTES, device));
            MemorySegment uuid = arena.allocate(CudaStructs.UUID_BYTES);
            check(CudaFunction.cuDeviceGetUuid, invoke(CudaFunction.cuDeviceGetUuid, uuid.address(), device));
            MemorySegment pci = arena.allocate(PCI_BUS_ID_BYTES);
            check(CudaFunction.cuDeviceGetPCIBusId,
                    invoke(CudaFunction.cuDeviceGetPCIBusId, pci.address(), PCI_BUS_ID_BYTES, device));
            MemorySegment total = arena.allocate(JAVA_LONG);
            check(CudaFunction.cuDeviceTotalMem, invoke(CudaFunction.cuDeviceTotalMem, total.address(), device));
            return new CudaDeviceInfo(
                    ordinal,
                    device,
                    boundedString(name, NAME_BYTES),
                    uuid.toArray(JAVA_BYTE),
                    CudaDeviceInfo.normalizePciBusId(boundedString(pci, PCI_BUS_ID_BYTES)),
                    luid(arena, device),
                    deviceAttribute(device, CudaConstants.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR),
                    deviceAttribute(device, CudaConstants.CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR),
                    total.get(JAVA_LONG, 0),
                    deviceAttribute(device, CudaConstants.CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
                    deviceAttribute(device, CudaConstants.CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE),
                    deviceAttribute(device, CudaConstants.CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH));
        }
    }

    /** Windows only: D3D12 and DXCore name adapters by LUID; elsewhere the call is unsupported. */
    private OptionalLong luid(Arena arena, int device) {
        if (!Platform.WINDOWS || !symbols.has(CudaFunction.cuDeviceGetLuid)) {
            return OptionalLong.empty();
        }
        MemorySegment luid = arena.allocate(CudaStructs.LUID_BYTES, 8);
        MemorySegment nodeMask = arena.allocate(JAVA_INT);
        int r = invoke(CudaFunction.cuDeviceGetLuid, luid.address(), nodeMask.address(), device);
        return r == CudaConstants.CUDA_SUCCESS ? OptionalLong.of(luid.get(JAVA_LONG, 0)) : OptionalLong.empty();
    }

    // ---- contexts ---------------------------------------------------------------------------

    /** {@code cuDevicePrimaryCtxRetain}: the device's primary context (shared with the CUDA runtime), retained. */
    public long primaryCtxRetain(int device) {
        MemorySegment s = scratch();
        check(CudaFunction.cuDevicePrimaryCtxRetain,
                invoke(CudaFunction.cuDevicePrimaryCtxRetain, s.address() + OUT0, device));
        return s.get(JAVA_LONG, OUT0);
    }

    /** {@code cuDevicePrimaryCtxRelease_v2}: one release per {@link #primaryCtxRetain}. */
    public void primaryCtxRelease(int device) {
        check(CudaFunction.cuDevicePrimaryCtxRelease, invokeInt(CudaFunction.cuDevicePrimaryCtxRelease, device));
    }

    /** {@code cuCtxSetCurrent}: binds the context to the calling thread (0 unbinds). */
    public void ctxSetCurrent(long ctx) {
        check(CudaFunction.cuCtxSetCurrent, invokeLong(CudaFunction.cuCtxSetCurrent, ctx));
        scratch().set(JAVA_LONG, LAST_CONTEXT, ctx);
    }

    /** {@code cuCtxGetCurrent}: the calling thread's context, 0 if none. */
    public long ctxGetCurrent() {
        return outLong(CudaFunction.cuCtxGetCurrent);
    }

    /** {@code cuCtxSynchronize}: waits for all work of the current context. */
    public void ctxSynchronize() {
        call(CudaFunction.cuCtxSynchronize, h -> (int) h.invokeExact());
    }

    /** {@code cuDeviceCanAccessPeer}: whether {@code device}'s contexts can map {@code peer}'s memory (NVLink, PCIe P2P). */
    public boolean deviceCanAccessPeer(int device, int peer) {
        MemorySegment s = scratch();
        s.set(JAVA_INT, OUT0, 0);
        check(CudaFunction.cuDeviceCanAccessPeer,
                invoke(CudaFunction.cuDeviceCanAccessPeer, s.address() + OUT0, device, peer));
        return s.get(JAVA_INT, OUT0) != 0;
    }

    /**
     * {@code cuCtxEnablePeerAccess(peerContext, 0)}: the current context may access {@code peerContext}'s memory
     * directly from then on. Access that was already enabled is not an error here (false is returned).
     */
    public boolean ctxEnablePeerAccess(long peerContext) {
        int result = invoke(CudaFunction.cuCtxEnablePeerAccess, peerContext, 0);
        if (result == CUDA_ERROR_PEER_ACCESS_ALREADY_ENABLED) {
            return false;
        }
        check(CudaFunction.cuCtxEnablePeerAccess, result);
        return true;
    }

    /**
     * {@code cuMemcpyPeerAsync}: device memory of one context to device memory of another. Works with or without
     * peer access; without it the driver stages the copy through host memory.
     */
    public void memcpyPeerAsync(long dst, long dstContext, long src, long srcContext, long bytes, long stream) {
        // invoked inline, as launchKernel is: a capturing lambda through call() would allocate per copy
        int r;
        try {
            r = (int) symbols.handle(CudaFunction.cuMemcpyPeerAsync).invokeExact(dst, dstContext, src, srcContext, bytes,
                    stream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(CudaFunction.cuMemcpyPeerAsync, r);
    }

    // ---- streams and events -----------------------------------------------------------------

    /** {@code cuStreamCreate} with {@code CU_STREAM_*} flags ({@link #STREAM_NON_BLOCKING}). */
    public long streamCreate(int flags) {
        return outLongWithFlags(CudaFunction.cuStreamCreate, flags);
    }

    /** {@code cuStreamDestroy_v2}; work already queued still completes. */
    public void streamDestroy(long stream) {
        check(CudaFunction.cuStreamDestroy, invokeLong(CudaFunction.cuStreamDestroy, stream));
    }

    /** {@code cuStreamSynchronize}. */
    public void streamSynchronize(long stream) {
        check(CudaFunction.cuStreamSynchronize, invokeLong(CudaFunction.cuStreamSynchronize, stream));
    }

    /** {@code cuStreamQuery}: true when all queued work is complete, false while it is not ({@code CUDA_ERROR_NOT_READY}). */
    public boolean streamQuery(long stream) {
        return ready(CudaFunction.cuStreamQuery, invokeLong(CudaFunction.cuStreamQuery, stream));
    }

    /** {@code cuStreamWaitEvent(stream, event, 0)}: later work on the stream waits for the event's work. */
    public void streamWaitEvent(long stream, long event) {
        check(CudaFunction.cuStreamWaitEvent, invoke(CudaFunction.cuStreamWaitEvent, stream, event, 0));
    }

    /** {@code cuEventCreate} with {@code CU_EVENT_*} flags ({@link #EVENT_DEFAULT}, {@link #EVENT_DISABLE_TIMING}). */
    public long eventCreate(int flags) {
        return outLongWithFlags(CudaFunction.cuEventCreate, flags);
    }

    /** {@code cuEventRecord}: the event completes when the stream's work queued so far does. */
    public void eventRecord(long event, long stream) {
        check(CudaFunction.cuEventRecord, invoke(CudaFunction.cuEventRecord, event, stream));
    }

    /** {@code cuEventSynchronize}. */
    public void eventSynchronize(long event) {
        check(CudaFunction.cuEventSynchronize, invokeLong(CudaFunction.cuEventSynchronize, event));
    }

    /** {@code cuEventQuery}: true when the event's work is complete. */
    public boolean eventQuery(long event) {
        return ready(CudaFunction.cuEventQuery, invokeLong(CudaFunction.cuEventQuery, event));
    }

    /** {@code cuEventDestroy_v2}. */
    public void eventDestroy(long event) {
        check(CudaFunction.cuEventDestroy, invokeLong(CudaFunction.cuEventDestroy, event));
    }

    /** {@code cuEventElapsedTime_v2}: milliseconds between two completed timing events (about 0.5 µs resolution). */
    public float eventElapsedMillis(long start, long end) {
        MemorySegment s = scratch();
        check(CudaFunction.cuEventElapsedTime, invoke(CudaFunction.cuEventElapsedTime, s.address() + OUT0, start, end));
        return s.get(JAVA_FLOAT, OUT0);
    }

    // ---- memory -----------------------------------------------------------------------------

    /** {@code cuMemAlloc_v2}: device memory in the current context. */
    public long memAlloc(long bytes) {
        return allocation(CudaFunction.cuMemAlloc, bytes);
    }

    /** {@code cuMemFree_v2}; also frees what {@link #externalMemoryGetMappedBuffer} mapped. */
    public void memFree(long devicePtr) {
        check(CudaFunction.cuMemFree, invokeLong(CudaFunction.cuMemFree, devicePtr));
    }

    /** {@code cuMemAllocAsync}: stream-ordered allocation from the device's current pool (CUDA 11.2+). */
    public long memAllocAsync(long bytes, long stream) {
        MemorySegment s = scratch();
        check(CudaFunction.cuMemAllocAsync, invoke(CudaFunction.cuMemAllocAsync, s.address() + OUT0, bytes, stream));
        return s.get(JAVA_LONG, OUT0);
    }

    /** {@code cuMemFreeAsync}: returns the memory to its pool once the stream reaches this point. */
    public void memFreeAsync(long devicePtr, long stream) {
        check(CudaFunction.cuMemFreeAsync, invoke(CudaFunction.cuMemFreeAsync, devicePtr, stream));
    }

    /** {@code cuMemAllocHost_v2}: page-locked host memory (what makes async copies truly asynchronous). */
    public long memAllocHost(long bytes) {
        return allocation(CudaFunction.cuMemAllocHost, bytes);
    }

    /** {@code cuMemFreeHost}. */
    public void memFreeHost(long hostPtr) {
        check(CudaFunction.cuMemFreeHost, invokeLong(CudaFunction.cuMemFreeHost, hostPtr));
    }

    /** {@code cuMemGetInfo_v2} for the current context's device. */
    public MemoryInfo memGetInfo() {
        MemorySegment s = scratch();
        check(CudaFunction.cuMemGetInfo, invoke(CudaFunction.cuMemGetInfo, s.address() + OUT0, s.address() + OUT1));
        return new MemoryInfo(s.get(JAVA_LONG, OUT0), s.get(JAVA_LONG, OUT1));
    }

    /** {@code cuDeviceGetDefaultMemPool}: the pool {@link #memAllocAsync} draws from unless changed. */
    public long deviceGetDefaultMemPool(int device) {
        MemorySegment s = scratch();
        check(CudaFunction.cuDeviceGetDefaultMemPool,
                invoke(CudaFunction.cuDeviceGetDefaultMemPool, s.address() + OUT0, device));
        return s.get(JAVA_LONG, OUT0);
    }

    /**
     * {@code cuMemPoolSetAttribute(pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &bytes)}: how much freed
     * memory the pool keeps across synchronizations (the default 0 returns it all at every sync).
     */
    public void memPoolSetReleaseThreshold(long pool, long bytes) {
        MemorySegment s = scratch();
        s.set(JAVA_LONG, OUT0, bytes);
        call(CudaFunction.cuMemPoolSetAttribute, h -> (int) h.invokeExact(pool,
                CudaConstants.CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, s.address() + OUT0));
    }

    /** {@code cuMemPoolTrimTo}: releases unused pool memory down to {@code minBytesToKeep}. */
    public void memPoolTrimTo(long pool, long minBytesToKeep) {
        check(CudaFunction.cuMemPoolTrimTo, invoke(CudaFunction.cuMemPoolTrimTo, pool, minBytesToKeep));
    }

    /** {@code cuMemcpyAsync}: any direction, the driver infers it from the addresses (unified addressing). */
    public void memcpyAsync(long dst, long src, long bytes, long stream) {
        copyAsync(CudaFunction.cuMemcpyAsync, dst, src, bytes, stream);
    }

    /** {@code cuMemcpyHtoDAsync_v2}; asynchronous only from page-locked host memory. */
    public void memcpyHtoDAsync(long dst, long srcHost, long bytes, long stream) {
        copyAsync(CudaFunction.cuMemcpyHtoDAsync, dst, srcHost, bytes, stream);
    }

    /** {@code cuMemcpyDtoHAsync_v2}; asynchronous only into page-locked host memory. */
    public void memcpyDtoHAsync(long dstHost, long src, long bytes, long stream) {
        copyAsync(CudaFunction.cuMemcpyDtoHAsync, dstHost, src, bytes, stream);
    }

    /** {@code cuMemcpyDtoDAsync_v2}. */
    public void memcpyDtoDAsync(long dst, long src, long bytes, long stream) {
        copyAsync(CudaFunction.cuMemcpyDtoDAsync, dst, src, bytes, stream);
    }

    private void copyAsync(CudaFunction function, long dst, long src, long bytes, long stream) {
        check(function, invoke(function, dst, src, bytes, stream));
    }

    /** {@code cuMemcpyHtoD_v2}: synchronous, from any native segment; for tests and tools. */
    public void memcpyHtoD(long dst, MemorySegment src, long bytes) {
        requireBytes(src, bytes, "src");
        call(CudaFunction.cuMemcpyHtoD, h -> (int) h.invokeExact(dst, src, bytes));
    }

    /** {@code cuMemcpyDtoH_v2}: synchronous, into any native segment; for tests and tools. */
    public void memcpyDtoH(MemorySegment dst, long src, long bytes) {
        requireBytes(dst, bytes, "dst");
        call(CudaFunction.cuMemcpyDtoH, h -> (int) h.invokeExact(dst, src, bytes));
    }

    /** {@code cuMemsetD8Async}: {@code count} bytes. */
    public void memsetD8Async(long dst, byte value, long count, long stream) {
        call(CudaFunction.cuMemsetD8Async, h -> (int) h.invokeExact(dst, value, count, stream));
    }

    /** {@code cuMemsetD32Async}: {@code count} 32-bit words; {@code dst} must be 4-byte aligned. */
    public void memsetD32Async(long dst, int value, long count, long stream) {
        call(CudaFunction.cuMemsetD32Async, h -> (int) h.invokeExact(dst, value, count, stream));
    }

    // ---- modules and launches ---------------------------------------------------------------

    /**
     * {@code cuModuleLoadDataEx} of PTX text, JIT-compiled for the current context's device. The JIT
     * error log is requested ({@code CU_JIT_ERROR_LOG_BUFFER}) so a compilation failure's
     * {@link CudaException} carries it: the bare {@code CUDA_ERROR_INVALID_PTX} says nothing of where.
     */
    public long moduleLoadData(String ptx) {
        Objects.requireNonNull(ptx, "ptx");
        try (Arena arena = Arena.ofConfined()) {
            return moduleLoadImage(arena.allocateFrom(ptx));
        }
    }

    /**
     * {@code cuModuleLoadDataEx} of an image in memory: PTX text (NUL-terminated), or a CUBIN (an ELF the
     * driver loads without compiling) such as NVRTC makes for the device's own architecture.
     */
    public long moduleLoadImage(MemorySegment image) {
        Objects.requireNonNull(image, "image");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment log = arena.allocate(JIT_LOG_BYTES);
            MemorySegment options = arena.allocateFrom(JAVA_INT,
                    CudaConstants.CU_JIT_ERROR_LOG_BUFFER, CudaConstants.CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES);
            // optionValues is void*[]: the buffer's address, and the size smuggled in a pointer-sized word
            MemorySegment values = arena.allocateFrom(JAVA_LONG, log.address(), JIT_LOG_BYTES);
            MemorySegment module = arena.allocate(JAVA_LONG);
            int r = (int) symbols.handle(CudaFunction.cuModuleLoadDataEx).invokeExact(
                    module.address(), image.address(), 2, options.address(), values.address());
            if (r != CudaConstants.CUDA_SUCCESS) {
                log.set(JAVA_BYTE, JIT_LOG_BYTES - 1, (byte) 0);
                String text = log.getString(0).strip();
                throw error(CudaFunction.cuModuleLoadDataEx, r, "JIT log:\n" + (text.isEmpty() ? "(empty)" : text));
            }
            return module.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code cuModuleGetFunction}: a kernel by its (mangled, for C++) name. */
    public long moduleGetFunction(long module, String name) {
        Objects.requireNonNull(name, "name");
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cName = arena.allocateFrom(name);
            MemorySegment function = arena.allocate(JAVA_LONG);
            int r = (int) symbols.handle(CudaFunction.cuModuleGetFunction)
                    .invokeExact(function.address(), module, cName.address());
            if (r != CudaConstants.CUDA_SUCCESS) {
                throw error(CudaFunction.cuModuleGetFunction, r, "kernel name: " + name);
            }
            return function.get(JAVA_LONG, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code cuModuleUnload}. */
    public void moduleUnload(long module) {
        check(CudaFunction.cuModuleUnload, invokeLong(CudaFunction.cuModuleUnload, module));
    }

    /**
     * {@code cuLaunchKernel} with {@code extra = NULL}.
     *
     * @param kernelParams a native {@code void*[]}, one pointer per kernel parameter, each pointing at that
     *     argument's bytes; the driver copies the arguments during the call, so it may be reused after.
     *     NULL or null for a kernel without parameters.
     */
    public void launchKernel(long function, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
            int sharedMemBytes, long stream, MemorySegment kernelParams) {
        MemorySegment params = kernelParams == null ? MemorySegment.NULL : kernelParams;
        // invoked here rather than through call(): a lambda capturing eleven arguments would be an allocation per
        // launch; the result takes the same check (a sticky error still records the context as lost)
        int r;
        try {
            r = (int) symbols.handle(CudaFunction.cuLaunchKernel).invokeExact(function, gridX, gridY, gridZ, blockX,
                    blockY, blockZ, sharedMemBytes, stream, params, MemorySegment.NULL);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(CudaFunction.cuLaunchKernel, r);
    }

    // ---- graphs ------------------------------------------------------------------------------
    // Stream capture into a graph, instantiation, launch and the two destroys. Only compiled groups that replay their
    // launches (CudaSubgraphProgram) and the session-level capture (OrtGraphCapture) use them. Their errors take the
    // same check as every driver call's: a sticky error met at cuGraphLaunch (a kernel of the graph faulted) marks the
    // context lost as one met at cuLaunchKernel does.

    /**
     * Whether the driver exports every graph function JavaCuda uses (CUDA 11.4 and newer:
     * {@code cuGraphInstantiateWithFlags}); without them groups launch eagerly.
     */
    public boolean hasGraphs() {
        return symbols.has(CudaFunction.cuStreamBeginCapture) && symbols.has(CudaFunction.cuStreamEndCapture)
                && symbols.has(CudaFunction.cuGraphInstantiateWithFlags) && symbols.has(CudaFunction.cuGraphLaunch)
                && symbols.has(CudaFunction.cuGraphExecDestroy) && symbols.has(CudaFunction.cuGraphDestroy);
    }

    /**
     * {@code cuStreamBeginCapture_v2(stream, CU_STREAM_CAPTURE_MODE_RELAXED)}: what is queued on {@code stream} until
     * {@link #streamEndCapture} becomes a graph instead of running. Relaxed: other threads' capture-unsafe calls
     * (cuMemAlloc, module loads) are not refused meanwhile.
     */
    public void streamBeginCapture(long stream) {
        check(CudaFunction.cuStreamBeginCapture, invoke(CudaFunction.cuStreamBeginCapture, stream,
                CudaConstants.CU_STREAM_CAPTURE_MODE_RELAXED));
    }

    /**
     * {@code cuStreamEndCapture}: the captured graph. A failed capture may still hand back a graph: it is destroyed
     * before the error is thrown.
     */
    public long streamEndCapture(long stream) {
        MemorySegment s = scratch();
        s.set(JAVA_LONG, OUT0, 0L);
        int r = invoke(CudaFunction.cuStreamEndCapture, stream, s.address() + OUT0);
        long graph = s.get(JAVA_LONG, OUT0);
        if (r != CudaConstants.CUDA_SUCCESS && graph != 0) {
            invokeLong(CudaFunction.cuGraphDestroy, graph); // the capture's own error is the one to report
        }
        check(CudaFunction.cuStreamEndCapture, r);
        return graph;
    }

    /** {@code cuGraphInstantiateWithFlags(&exec, graph, 0)}: an executable graph ({@code graph} may go after). */
    public long graphInstantiate(long graph) {
        MemorySegment s = scratch();
        s.set(JAVA_LONG, OUT0, 0L);
        check(CudaFunction.cuGraphInstantiateWithFlags,
                invoke(CudaFunction.cuGraphInstantiateWithFlags, s.address() + OUT0, graph, 0L));
        return s.get(JAVA_LONG, OUT0);
    }

    /** {@code cuGraphLaunch}: queued on {@code stream}, ordered after earlier launches of the same graph. */
    public void graphLaunch(long exec, long stream) {
        check(CudaFunction.cuGraphLaunch, invoke(CudaFunction.cuGraphLaunch, exec, stream));
    }

    public void graphExecDestroy(long exec) {
        check(CudaFunction.cuGraphExecDestroy, invokeLong(CudaFunction.cuGraphExecDestroy, exec));
    }

    public void graphDestroy(long graph) {
        check(CudaFunction.cuGraphDestroy, invokeLong(CudaFunction.cuGraphDestroy, graph));
    }

    // ---- external resource interop ----------------------------------------------------------

    /**
     * {@code cuImportExternalMemory} of an {@code OPAQUE_FD} (Vulkan or CUDA VMM export). On success the
     * driver owns the fd (do not close it); on failure it stays the caller's.
     *
     * @param flags {@link CudaConstants#CUDA_EXTERNAL_MEMORY_DEDICATED} for a dedicated allocation, else 0
     */
    public long importExternalMemoryFd(int fd, long size, int flags) {
        MemorySegment s = externalMemoryDesc(CudaHandleTypes.MEMORY_OPAQUE_FD, size, flags);
        s.set(JAVA_INT, STRUCT + CudaStructs.EXTERNAL_MEMORY_HANDLE_DESC_FD, fd);
        return importStruct(CudaFunction.cuImportExternalMemory, s);
    }

    /**
     * {@code cuImportExternalMemory} of a Windows handle. The handle is not transferred: the caller
     * still closes it.
     *
     * @param cudaHandleType a {@code CudaHandleTypes.MEMORY_*} Win32 type (OPAQUE_WIN32, D3D12_HEAP, D3D12_RESOURCE, ...)
     * @param namePtr address of a UTF-16 name for a named handle, or 0 (then {@code handle} must be set)
     * @param flags {@link CudaConstants#CUDA_EXTERNAL_MEMORY_DEDICATED} for D3D12_RESOURCE, else 0
     */
    public long importExternalMemoryWin32(int cudaHandleType, long handle, long namePtr, long size, int flags) {
        MemorySegment s = externalMemoryDesc(cudaHandleType, size, flags);
        win32Handle(s, CudaStructs.EXTERNAL_MEMORY_HANDLE_DESC_WIN32_HANDLE, CudaStructs.EXTERNAL_MEMORY_HANDLE_DESC_WIN32_NAME,
                handle, namePtr);
        return importStruct(CudaFunction.cuImportExternalMemory, s);
    }

    /**
     * {@code cuExternalMemoryGetMappedBuffer}: a device pointer to {@code [offset, offset + size)} of the
     * imported memory; free it with {@link #memFree} before {@link #destroyExternalMemory}.
     */
    public long externalMemoryGetMappedBuffer(long extMem, long offset, long size) {
        MemorySegment s = scratchStruct(EXTERNAL_MEMORY_BUFFER_DESC.byteSize());
        s.set(JAVA_LONG, STRUCT + CudaStructs.EXTERNAL_MEMORY_BUFFER_DESC_OFFSET, offset);
        s.set(JAVA_LONG, STRUCT + CudaStructs.EXTERNAL_MEMORY_BUFFER_DESC_SIZE, size);
        check(CudaFunction.cuExternalMemoryGetMappedBuffer,
                invoke(CudaFunction.cuExternalMemoryGetMappedBuffer, s.address() + OUT0, extMem, s.address() + STRUCT));
        return s.get(JAVA_LONG, OUT0);
    }

    /** {@code cuDestroyExternalMemory}: after every mapped buffer is freed. */
    public void destroyExternalMemory(long extMem) {
        check(CudaFunction.cuDestroyExternalMemory, invokeLong(CudaFunction.cuDestroyExternalMemory, extMem));
    }

    /**
     * {@code cuImportExternalSemaphore} of an fd ({@code SEMAPHORE_OPAQUE_FD} or
     * {@code SEMAPHORE_TIMELINE_SEMAPHORE_FD}); like memory, the driver owns the fd after success.
     */
    public long importExternalSemaphoreFd(int cudaHandleType, int fd) {
        MemorySegment s = externalSemaphoreDesc(cudaHandleType);
        s.set(JAVA_INT, STRUCT + CudaStructs.EXTERNAL_SEMAPHORE_HANDLE_DESC_FD, fd);
        return importStruct(CudaFunction.cuImportExternalSemaphore, s);
    }

    /** {@code cuImportExternalSemaphore} of a Windows handle (D3D12_FENCE, TIMELINE_SEMAPHORE_WIN32, ...); not transferred. */
    public long importExternalSemaphoreWin32(int cudaHandleType, long handle, long namePtr) {
        MemorySegment s = externalSemaphoreDesc(cudaHandleType);
        win32Handle(s, CudaStructs.EXTERNAL_SEMAPHORE_HANDLE_DESC_WIN32_HANDLE,
                CudaStructs.EXTERNAL_SEMAPHORE_HANDLE_DESC_WIN32_NAME, handle, namePtr);
        return importStruct(CudaFunction.cuImportExternalSemaphore, s);
    }

    /** {@code cuSignalExternalSemaphoresAsync} of one semaphore: set to {@code value} once the stream's prior work is done. */
    public void signalExternalSemaphoreAsync(long sem, long value, long stream) {
        MemorySegment s = scratchStruct(EXTERNAL_SEMAPHORE_SIGNAL_PARAMS.byteSize());
        s.set(JAVA_LONG, STRUCT + CudaStructs.EXTERNAL_SEMAPHORE_SIGNAL_PARAMS_FENCE_VALUE, value);
        semaphoreOp(CudaFunction.cuSignalExternalSemaphoresAsync, s, sem, stream);
    }

    /** {@code cuWaitExternalSemaphoresAsync} of one semaphore: the stream's later work waits until it reaches {@code value}. */
    public void waitExternalSemaphoreAsync(long sem, long value, long stream) {
        MemorySegment s = scratchStruct(EXTERNAL_SEMAPHORE_WAIT_PARAMS.byteSize());
        s.set(JAVA_LONG, STRUCT + CudaStructs.EXTERNAL_SEMAPHORE_WAIT_PARAMS_FENCE_VALUE, value);
        semaphoreOp(CudaFunction.cuWaitExternalSemaphoresAsync, s, sem, stream);
    }

    /** {@code cuDestroyExternalSemaphore}: outstanding signals and waits must have completed. */
    public void destroyExternalSemaphore(long sem) {
        check(CudaFunction.cuDestroyExternalSemaphore, invokeLong(CudaFunction.cuDestroyExternalSemaphore, sem));
    }

    private void semaphoreOp(CudaFunction function, MemorySegment s, long sem, long stream) {
        s.set(JAVA_LONG, SEMAPHORE_ARRAY, sem);
        // inline, as launchKernel: waits and signals run every frame, a capturing lambda would allocate each time
        int r;
        try {
            r = (int) symbols.handle(function).invokeExact(s.address() + SEMAPHORE_ARRAY, s.address() + STRUCT, 1, stream);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(function, r);
    }

    /** A zeroed {@code CUDA_EXTERNAL_MEMORY_HANDLE_DESC} in the scratch, its type, size and flags set. */
    private static MemorySegment externalMemoryDesc(int cudaHandleType, long size, int flags) {
        MemorySegment s = scratchStruct(EXTERNAL_MEMORY_HANDLE_DESC.byteSize());
        s.set(JAVA_INT, STRUCT + CudaStructs.EXTERNAL_MEMORY_HANDLE_DESC_TYPE, cudaHandleType);
        s.set(JAVA_LONG, STRUCT + CudaStructs.EXTERNAL_MEMORY_HANDLE_DESC_SIZE, size);
        s.set(JAVA_INT, STRUCT + CudaStructs.EXTERNAL_MEMORY_HANDLE_DESC_FLAGS, flags);
        return s;
    }

    /** A zeroed {@code CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC} in the scratch, its type set. */
    private static MemorySegment externalSemaphoreDesc(int cudaHandleType) {
        MemorySegment s = scratchStruct(EXTERNAL_SEMAPHORE_HANDLE_DESC.byteSize());
        s.set(JAVA_INT, STRUCT + CudaStructs.EXTERNAL_SEMAPHORE_HANDLE_DESC_TYPE, cudaHandleType);
        return s;
    }

    /** The {@code handle.win32} union member of a handle description: a handle, or the address of a name. */
    private static void win32Handle(MemorySegment s, long handleOffset, long nameOffset, long handle, long namePtr) {
        s.set(JAVA_LONG, STRUCT + handleOffset, handle);
        s.set(JAVA_LONG, STRUCT + nameOffset, namePtr);
    }

    /** {@code (pointer *out, size_t bytes)}: the synchronous allocation functions. */
    private long allocation(CudaFunction function, long bytes) {
        MemorySegment s = scratch();
        check(function, invoke(function, s.address() + OUT0, bytes));
        return s.get(JAVA_LONG, OUT0);
    }

    /** {@code (handle *out, const desc *)}: the import functions. */
    private long importStruct(CudaFunction function, MemorySegment s) {
        check(function, invoke(function, s.address() + OUT0, s.address() + STRUCT));
        return s.get(JAVA_LONG, OUT0);
    }

    // ---- plumbing ---------------------------------------------------------------------------

    /** This thread's scratch segment; outlives the call because the thread-local holds it. */
    private static MemorySegment scratch() {
        return SCRATCH.get();
    }

    /** This thread's scratch with its struct area zeroed ({@code reserved} words must be 0). */
    private static MemorySegment scratchStruct(long structBytes) {
        MemorySegment s = SCRATCH.get();
        MemorySegment.copy(ZEROS, 0, s, STRUCT, structBytes);
        return s;
    }

    // Calls by C shape (long: a pointer, handle or size; int: a CUdevice, flag or count), each one invokeExact that
    // returns the CUresult; one line each, as they differ in nothing but the shape. A shape used once invokes its
    // handle where it is used, through call().

    /** One driver call through {@code function}'s handle, answering its CUresult. */
    @FunctionalInterface
    private interface Call {
        int on(MethodHandle handle) throws Throwable;
    }

    /** Calls {@code function} and checks its result: the calls whose argument types no {@code invoke} below takes. */
    private void call(CudaFunction function, Call call) {
        int r;
        try {
            r = call.on(symbols.handle(function));
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(function, r);
    }

    private int invokeLong(CudaFunction function, long a) {
        try { return (int) symbols.handle(function).invokeExact(a); } catch (Throwable t) { throw rethrow(t); }
    }

    private int invokeInt(CudaFunction function, int a) {
        try { return (int) symbols.handle(function).invokeExact(a); } catch (Throwable t) { throw rethrow(t); }
    }

    private int invoke(CudaFunction function, long a, int b) {
        try { return (int) symbols.handle(function).invokeExact(a, b); } catch (Throwable t) { throw rethrow(t); }
    }

    private int invoke(CudaFunction function, long a, int b, int c) {
        try { return (int) symbols.handle(function).invokeExact(a, b, c); } catch (Throwable t) { throw rethrow(t); }
    }

    private int invoke(CudaFunction function, long a, long b, int c) {
        try { return (int) symbols.handle(function).invokeExact(a, b, c); } catch (Throwable t) { throw rethrow(t); }
    }

    private int invoke(CudaFunction function, long a, long b) {
        try { return (int) symbols.handle(function).invokeExact(a, b); } catch (Throwable t) { throw rethrow(t); }
    }

    private int invoke(CudaFunction function, long a, long b, long c) {
        try { return (int) symbols.handle(function).invokeExact(a, b, c); } catch (Throwable t) { throw rethrow(t); }
    }

    private int invoke(CudaFunction function, long a, long b, long c, long d) {
        try { return (int) symbols.handle(function).invokeExact(a, b, c, d); } catch (Throwable t) { throw rethrow(t); }
    }

    /** {@code (T *out)} functions returning a pointer-sized handle. */
    private long outLong(CudaFunction function) {
        MemorySegment s = scratch();
        s.set(JAVA_LONG, OUT0, 0L);
        check(function, invokeLong(function, s.address() + OUT0));
        return s.get(JAVA_LONG, OUT0);
    }

    /** {@code (T *out, unsigned flags)} functions returning a pointer-sized handle. */
    private long outLongWithFlags(CudaFunction function, int flags) {
        MemorySegment s = scratch();
        check(function, invoke(function, s.address() + OUT0, flags));
        return s.get(JAVA_LONG, OUT0);
    }

    private boolean ready(CudaFunction function, int result) {
        if (result == CudaConstants.CUDA_SUCCESS) {
            return true;
        }
        if (result == CudaConstants.CUDA_ERROR_NOT_READY) {
            return false;
        }
        throw error(function, result, null);
    }

    private void check(CudaFunction function, int result) {
        if (result != CudaConstants.CUDA_SUCCESS) {
            throw error(function, result, null);
        }
    }

    private CudaException error(CudaFunction function, int result, String detail) {
        String cause = CudaErrors.contextLossCause(result);
        if (cause != null) {
            recordContextLoss(function, result, cause);
            String loss = "The CUDA context is unusable from now on (" + cause + "): every later CUDA call in it fails;"
                    + " restart the process to use this GPU again";
            detail = detail == null ? loss : detail + "\n" + loss;
        }
        return new CudaException(symbols.boundName(function), result, errorName(result), errorString(result), detail);
    }

    /**
     * Remembers that the calling thread's current context is lost (sticky errors belong to the context
     * the failing call ran in). The first error wins: later calls in a lost context all return it again.
     */
    private void recordContextLoss(CudaFunction function, int result, String cause) {
        long context = currentContextOrZero();
        if (context != 0 && lostContexts.putIfAbsent(context,
                new ContextLoss(context, symbols.boundName(function), result, errorName(result), cause)) == null) {
            anyContextLost = true;
        }
    }

    /**
     * The calling thread's context for the error path, never throwing: {@code cuCtxGetCurrent}, or, where
     * that fails too (a driver may answer it with the sticky error as well), the context this thread last
     * made current through {@link #ctxSetCurrent}.
     */
    private long currentContextOrZero() {
        MemorySegment s = scratch();
        try {
            s.set(JAVA_LONG, OUT1, 0L);
            int r = (int) symbols.handle(CudaFunction.cuCtxGetCurrent).invokeExact(s.address() + OUT1);
            long context = s.get(JAVA_LONG, OUT1);
            if (r == CudaConstants.CUDA_SUCCESS && context != 0) {
                return context;
            }
        } catch (Throwable t) {
            // fall through to what this thread last set
        }
        return s.get(JAVA_LONG, LAST_CONTEXT);
    }

    /**
     * Whether a sticky error ({@link CudaErrors#contextLossCause}) made {@code context} unusable, and which:
     * recorded by whatever call first returned one while the context was current.
     */
    public Optional<ContextLoss> contextLoss(long context) {
        return anyContextLost ? Optional.ofNullable(lostContexts.get(context)) : Optional.empty();
    }

    private static void requireBytes(MemorySegment segment, long bytes, String what) {
        Objects.requireNonNull(segment, what);
        if (bytes < 0 || segment.byteSize() < bytes) {
            throw new IllegalArgumentException(what + " holds " + segment.byteSize() + " bytes, cannot copy " + bytes);
        }
    }

    private static String boundedString(MemorySegment buffer, int bytes) {
        buffer.set(JAVA_BYTE, bytes - 1, (byte) 0);
        return buffer.getString(0);
    }

    /** A NUL-terminated string the driver owns (static error texts). */
    private static String cString(long address) {
        return MemorySegment.ofAddress(address).reinterpret(4096).getString(0);
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }
}
