package dev.javaep.cuda.driver;

import static dev.javaep.cuda.driver.FakeCuda.*;
import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The binding against {@code fake_libcuda.c}, a stand-in library built here with gcc: every downcall's
 * argument order and width, every struct field javaep writes (read back through gcc's layout of the
 * cuda.h structs), symbol fallbacks, missing symbols, and the failures a real driver cannot be made
 * to produce on demand. Runs wherever gcc does; the real driver is CudaDriverGpuTest's job.
 */
class CudaDriverFakeLibraryTest {
    private static final long BUSY = 0xB05;

    private static FakeCuda fake;
    private static CudaLibrary library;
    private static CudaDriver driver;

    @BeforeAll
    static void buildFakeDriver() {
        fake = FakeCuda.build();
        library = fake.library;
        driver = fake.driver();
    }

    @AfterEach
    void resetFaults() throws Throwable {
        configure(0, 1);
        fake.loseContext(0);
    }

    private static void configure(int initResult, int errorNames) {
        fake.configure(initResult, errorNames);
    }

    private static long last(int key) {
        return fake.last(key);
    }

    // ---- load and errors ----------------------------------------------------------------------

    @Test
    void cuInitFailureBecomesCudaUnavailableWithTheDriversWords() throws Throwable {
        configure(100, 1);
        CudaUnavailableException e = assertThrows(CudaUnavailableException.class, () -> CudaDriver.open(library));
        assertTrue(e.getMessage().startsWith(
                "cuInit failed: CUDA_ERROR_NO_DEVICE (100): no CUDA-capable device is detected"), e.getMessage());
    }

    @Test
    void cuInitFailureUsesTheFallbackTableWhenTheDriverCannotNameIt() throws Throwable {
        configure(34, 0);
        CudaUnavailableException e = assertThrows(CudaUnavailableException.class, () -> CudaDriver.open(library));
        assertTrue(e.getMessage().startsWith("cuInit failed: CUDA_ERROR_STUB_LIBRARY (34): CUDA driver is a stub library"),
                e.getMessage());
        assertTrue(e.getMessage().contains("install the NVIDIA driver"), e.getMessage());
    }

    @Test
    void failedCallsNameTheVersionedSymbol() throws Throwable {
        CudaException e = assertThrows(CudaException.class, () -> driver.memAlloc(1L << 50));
        assertEquals("cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory (fake driver)", e.getMessage());
        assertEquals(2, e.result());
        assertEquals("cuMemAlloc_v2", e.function());

        configure(0, 0);
        e = assertThrows(CudaException.class, () -> driver.memAlloc(1L << 50));
        assertEquals("cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory", e.getMessage());
        assertEquals("CUDA_ERROR_OUT_OF_MEMORY", e.errorName());
    }

    @Test
    void missingOptionalSymbolsFailOnlyWhenCalled() {
        assertFalse(driver.supports(CudaFunction.cuMemPoolTrimTo));
        UnsupportedOperationException e = assertThrows(UnsupportedOperationException.class,
                () -> driver.memPoolTrimTo(0x900, 0));
        assertTrue(e.getMessage().contains("has no cuMemPoolTrimTo") && e.getMessage().contains("CUDA 11.2"),
                e.getMessage());
        assertFalse(driver.supports(CudaFunction.cuDeviceGetLuid));
    }

    @Test
    void olderSymbolIsTheFallbackForANewerOne() {
        long start = driver.eventCreate(CudaDriver.EVENT_DEFAULT);
        long end = driver.eventCreate(CudaDriver.EVENT_DEFAULT);
        assertEquals(1.5f, driver.eventElapsedMillis(start, end));
        assertEquals("cuEventElapsedTime", driver.boundSymbol(CudaFunction.cuEventElapsedTime));
        assertEquals("cuDeviceGetUuid_v2", driver.boundSymbol(CudaFunction.cuDeviceGetUuid));
        CudaException e = assertThrows(CudaException.class, () -> driver.eventElapsedMillis(0, end));
        assertEquals("cuEventElapsedTime", e.function(), "errors name the symbol actually bound");
    }

    // ---- devices and contexts -------------------------------------------------------------------

    @Test
    void deviceInfoReadsEveryField() {
        assertEquals(13000, driver.driverVersion());
        assertEquals(2, driver.deviceCount());
        CudaDeviceInfo info = driver.deviceInfo(1);
        assertEquals(1, info.ordinal());
        assertEquals(11, info.handle());
        assertEquals("Fake GPU 11", info.name());
        byte[] uuid = new byte[16];
        for (int i = 0; i < 16; i++) {
            uuid[i] = (byte) (i * 16 + 11);
        }
        assertArrayEquals(uuid, info.uuid());
        assertEquals("0000:3c:00.0", info.pciBusId(), "CUDA's uppercase form normalized");
        assertTrue(info.luid().isEmpty());
        assertEquals(9, info.computeCapabilityMajor());
        assertEquals(0, info.computeCapabilityMinor());
        assertEquals(80L << 30, info.totalMemoryBytes());
        assertEquals(132, info.multiprocessorCount());
        assertEquals(2_619_000, info.memoryClockKhz());
        assertEquals(5120, info.memoryBusWidthBits());

        CudaException e = assertThrows(CudaException.class, () -> driver.deviceInfo(2));
        assertEquals("cuDeviceGet", e.function());
        assertEquals("CUDA_ERROR_INVALID_DEVICE", e.errorName());
    }

    @Test
    void contexts() throws Throwable {
        long ctx = driver.primaryCtxRetain(driver.device(0));
        assertEquals(0xC000 + 10, ctx);
        driver.ctxSetCurrent(ctx);
        assertEquals(ctx, last(K_CTX));
        assertEquals(ctx, driver.ctxGetCurrent());
        driver.ctxSynchronize();
        driver.ctxSetCurrent(0);
        assertEquals(0, driver.ctxGetCurrent());
        driver.primaryCtxRelease(10);
        assertThrows(CudaException.class, () -> driver.primaryCtxRelease(3));
    }

    @Test
    void aStickyErrorIsRecordedAgainstTheContextItHappenedIn() {
        CudaDriver fresh = fake.driver(); // its own record of lost contexts
        long ctx = fresh.primaryCtxRetain(10);
        fresh.ctxSetCurrent(ctx);
        assertTrue(fresh.contextLoss(ctx).isEmpty());
        assertThrows(CudaException.class, () -> fresh.memAlloc(1L << 50));
        assertTrue(fresh.contextLoss(ctx).isEmpty(), "out of memory leaves the context usable");

        fake.loseContext(FakeCuda.ILLEGAL_ADDRESS);
        CudaException e = assertThrows(CudaException.class, () -> fresh.streamSynchronize(0x5001));
        assertEquals("cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (700): an illegal memory access was encountered"
                + "\nThe CUDA context is unusable from now on (a kernel faulted): every later CUDA call in it fails;"
                + " restart the process to use this GPU again", e.getMessage());
        CudaDriver.ContextLoss loss = fresh.contextLoss(ctx).orElseThrow();
        assertEquals(new CudaDriver.ContextLoss(ctx, "cuStreamSynchronize", 700, "CUDA_ERROR_ILLEGAL_ADDRESS",
                "a kernel faulted"), loss);
        assertThrows(CudaException.class, () -> fresh.memAllocAsync(16, 0x5001));
        assertEquals(loss, fresh.contextLoss(ctx).orElseThrow(), "the first error wins");
        assertTrue(fresh.contextLoss(ctx + 1).isEmpty(), "only the context the error happened in");
        assertTrue(driver.contextLoss(ctx).isEmpty(), "another driver instance keeps its own record");
        fresh.ctxSetCurrent(0);
    }

    // ---- streams and events ---------------------------------------------------------------------

    @Test
    void streamsAndEvents() throws Throwable {
        long stream = driver.streamCreate(CudaDriver.STREAM_NON_BLOCKING);
        assertEquals(0x5001, stream, "flags reach the driver");
        long event = driver.eventCreate(CudaDriver.EVENT_DISABLE_TIMING);
        assertEquals(0xE002, event);

        driver.eventRecord(event, stream);
        assertEquals(event, last(K_EVENT));
        assertEquals(stream, last(K_STREAM));
        driver.streamWaitEvent(0x5007, 0xE009);
        assertEquals(0x5007, last(K_STREAM));
        assertEquals(0xE009, last(K_EVENT));
        assertEquals(0, last(K_FLAGS));

        assertTrue(driver.streamQuery(stream));
        assertFalse(driver.streamQuery(BUSY), "CUDA_ERROR_NOT_READY is an answer, not an error");
        assertTrue(driver.eventQuery(event));
        assertFalse(driver.eventQuery(BUSY));
        driver.eventSynchronize(event);
        driver.streamSynchronize(stream);
        driver.eventDestroy(event);
        driver.streamDestroy(stream);
        CudaException e = assertThrows(CudaException.class, () -> driver.streamDestroy(0));
        assertEquals("cuStreamDestroy_v2", e.function());
    }

    // ---- memory ---------------------------------------------------------------------------------

    @Test
    void memoryRoundTripsThroughEveryCopy() throws Throwable {
        try (Arena arena = Arena.ofConfined()) {
            int n = 1024;
            MemorySegment src = arena.allocate(JAVA_INT, n);
            for (int i = 0; i < n; i++) {
                src.setAtIndex(JAVA_INT, i, i * 7);
            }
            long bytes = 4L * n;
            long a = driver.memAlloc(bytes);
            long stream = 0x5000;
            long b = driver.memAllocAsync(bytes, stream);
            assertEquals(stream, last(K_STREAM));
            long host = driver.memAllocHost(bytes);

            driver.memcpyHtoD(a, src, bytes);
            driver.memcpyDtoDAsync(b, a, bytes, stream);
            driver.memcpyDtoHAsync(host, b, bytes, stream);
            driver.memsetD32Async(a, 0, n, stream);
            driver.memcpyHtoDAsync(a, host, bytes, stream);
            driver.memcpyAsync(b, a, bytes, 0x5003);
            assertEquals(0x5003, last(K_STREAM));
            MemorySegment dst = arena.allocate(JAVA_INT, n);
            driver.memcpyDtoH(dst, b, bytes);
            assertArrayEquals(src.toArray(JAVA_INT), dst.toArray(JAVA_INT));

            driver.memsetD32Async(b, 0xDEADBEEF, n, stream);
            driver.memsetD8Async(b, (byte) 0xAB, 4, stream);
            driver.memcpyDtoH(dst, b, bytes);
            assertEquals(0xABABABAB, dst.getAtIndex(JAVA_INT, 0));
            assertEquals(0xDEADBEEF, dst.getAtIndex(JAVA_INT, n - 1));

            driver.memFreeHost(host);
            driver.memFreeAsync(b, 0x5004);
            assertEquals(0x5004, last(K_STREAM));
            driver.memFree(a);

            assertThrows(IllegalArgumentException.class, () -> driver.memcpyDtoH(arena.allocate(8), 0, 16));
        }
    }

    @Test
    void memoryInfoAndPools() throws Throwable {
        CudaDriver.MemoryInfo info = driver.memGetInfo();
        assertEquals(70L << 30, info.freeBytes());
        assertEquals(80L << 30, info.totalBytes());
        long pool = driver.deviceGetDefaultMemPool(11);
        assertEquals(0x900 + 11, pool);
        driver.memPoolSetReleaseThreshold(pool, Long.MAX_VALUE);
        assertEquals(Long.MAX_VALUE, last(K_RELEASE_THRESHOLD));
        driver.memPoolSetReleaseThreshold(pool, 3L << 32);
        assertEquals(3L << 32, last(K_RELEASE_THRESHOLD));
    }

    // ---- modules and launches -------------------------------------------------------------------

    @Test
    void moduleLoadLaunchAndUnload() throws Throwable {
        long module = driver.moduleLoadData(".version 7.0\n.target sm_52\n");
        long function = driver.moduleGetFunction(module, "add_one");
        try (Arena arena = Arena.ofConfined()) {
            int n = 100;
            long data = driver.memAlloc(4L * n);
            MemorySegment init = arena.allocate(JAVA_FLOAT, n);
            for (int i = 0; i < n; i++) {
                init.setAtIndex(JAVA_FLOAT, i, i);
            }
            driver.memcpyHtoD(data, init, 4L * n);
            MemorySegment dataArg = arena.allocateFrom(JAVA_LONG, data);
            MemorySegment nArg = arena.allocateFrom(JAVA_INT, n);
            MemorySegment params = arena.allocate(ADDRESS, 2);
            params.setAtIndex(ADDRESS, 0, dataArg);
            params.setAtIndex(ADDRESS, 1, nArg);

            driver.launchKernel(function, 4, 1, 1, 32, 1, 1, 48, 0x5002, params);
            assertEquals(4, last(K_GRID));
            assertEquals(32, last(K_BLOCK));
            assertEquals(48, last(K_SHARED_MEM));
            assertEquals(0x5002, last(K_STREAM));

            MemorySegment out = arena.allocate(JAVA_FLOAT, n);
            driver.memcpyDtoH(out, data, 4L * n);
            for (int i = 0; i < n; i++) {
                assertEquals(i + 1.0f, out.getAtIndex(JAVA_FLOAT, i), "element " + i);
            }
            driver.memFree(data);
        }
        CudaException e = assertThrows(CudaException.class, () -> driver.moduleGetFunction(module, "nope"));
        assertTrue(e.getMessage().contains("CUDA_ERROR_NOT_FOUND") && e.getMessage().contains("nope"), e.getMessage());
        driver.moduleUnload(module);
    }

    @Test
    void jitFailureCarriesTheJitLog() {
        CudaException e = assertThrows(CudaException.class, () -> driver.moduleLoadData("invalid ptx"));
        assertEquals("cuModuleLoadDataEx", e.function());
        assertEquals(218, e.result());
        assertTrue(e.getMessage().startsWith("cuModuleLoadDataEx failed: CUDA_ERROR_INVALID_PTX (218)"), e.getMessage());
        assertTrue(e.getMessage().contains("\nJIT log:\nptxas application ptx input, line 1; fatal   : fake parse error"),
                e.getMessage());
    }

    // ---- external resource interop --------------------------------------------------------------

    @Test
    void externalMemoryDescriptorsReachTheDriversFields() throws Throwable {
        long ext = driver.importExternalMemoryFd(42, 1L << 33, CudaConstants.CUDA_EXTERNAL_MEMORY_DEDICATED);
        assertEquals(0xE3E3, ext);
        assertEquals(CudaHandleTypes.MEMORY_OPAQUE_FD, last(K_TYPE));
        assertEquals(42, last(K_FD));
        assertEquals(1L << 33, last(K_SIZE));
        assertEquals(1, last(K_FLAGS));
        assertEquals(0, last(K_NONZERO_RESERVED));

        assertEquals(0xD0000000L + 4096, driver.externalMemoryGetMappedBuffer(ext, 4096, 1 << 20));
        assertEquals(4096, last(K_OFFSET));
        assertEquals(1 << 20, last(K_SIZE));
        assertEquals(0, last(K_FLAGS));
        assertEquals(0, last(K_NONZERO_RESERVED));

        assertEquals(0xE3E3, driver.importExternalMemoryWin32(CudaHandleTypes.MEMORY_D3D12_RESOURCE,
                0x1234_5678_9ABCL, 0x7FFF_0000_1000L, 65536, CudaConstants.CUDA_EXTERNAL_MEMORY_DEDICATED));
        assertEquals(CudaHandleTypes.MEMORY_D3D12_RESOURCE, last(K_TYPE));
        assertEquals(0x1234_5678_9ABCL, last(K_HANDLE));
        assertEquals(0x7FFF_0000_1000L, last(K_NAME));
        assertEquals(65536, last(K_SIZE));
        assertEquals(0, last(K_NONZERO_RESERVED));
        driver.destroyExternalMemory(ext);
    }

    @Test
    void externalSemaphoresReachTheDriversFields() throws Throwable {
        long sem = driver.importExternalSemaphoreFd(CudaHandleTypes.SEMAPHORE_TIMELINE_SEMAPHORE_FD, 77);
        assertEquals(0x5E3, sem);
        assertEquals(9, last(K_TYPE));
        assertEquals(77, last(K_FD));
        assertEquals(0, last(K_FLAGS));
        assertEquals(0, last(K_NONZERO_RESERVED));

        driver.importExternalSemaphoreWin32(CudaHandleTypes.SEMAPHORE_D3D12_FENCE, 0xABCDEF, 0);
        assertEquals(4, last(K_TYPE));
        assertEquals(0xABCDEF, last(K_HANDLE));
        assertEquals(0, last(K_NAME));

        // dirty the scratch struct area first: the signal must still see zeroed reserved words
        driver.importExternalMemoryWin32(2, -1L, -1L, -1L, -1);
        driver.signalExternalSemaphoreAsync(sem, 0x1_0000_0001L, 0x5001);
        assertEquals(1, last(K_NUM_SEMS));
        assertEquals(sem, last(K_SEM));
        assertEquals(0x1_0000_0001L, last(K_FENCE_VALUE));
        assertEquals(0, last(K_FLAGS));
        assertEquals(0, last(K_NONZERO_RESERVED));
        assertEquals(0x5001, last(K_STREAM));

        driver.importExternalMemoryWin32(2, -1L, -1L, -1L, -1);
        driver.waitExternalSemaphoreAsync(sem, 5, 0x5002);
        assertEquals(1, last(K_NUM_SEMS));
        assertEquals(sem, last(K_SEM));
        assertEquals(5, last(K_FENCE_VALUE));
        assertEquals(0, last(K_NONZERO_RESERVED));
        assertEquals(0x5002, last(K_STREAM));
        driver.destroyExternalSemaphore(sem);
    }

    @Test
    void scratchIsPerThread() throws Exception {
        Thread[] threads = new Thread[8];
        Throwable[] failures = new Throwable[threads.length];
        for (int t = 0; t < threads.length; t++) {
            int index = t;
            threads[t] = Thread.ofPlatform().start(() -> {
                try {
                    for (int i = 0; i < 2000; i++) {
                        assertEquals(0x5000 + index, driver.streamCreate(index));
                        assertEquals(70L << 30, driver.memGetInfo().freeBytes());
                    }
                } catch (Throwable e) {
                    failures[index] = e;
                }
            });
        }
        for (Thread thread : threads) {
            thread.join();
        }
        for (Throwable failure : failures) {
            if (failure != null) {
                throw new AssertionError(failure);
            }
        }
    }
}
