package dev.javaep.cuda.driver;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/** The binding against the real NVIDIA driver and GPU 0. Skipped, with the reason, where {@link CudaDriver#load()} fails. */
@Tag("gpu")
class CudaDriverGpuTest {

    /** {@code add_one(float *data, unsigned n)}: data[i] += 1 for i < n. PTX 7.0 / sm_52 JITs on every driver since CUDA 11.0. */
    static final String ADD_ONE_PTX = """
            .version 7.0
            .target sm_52
            .address_size 64

            .visible .entry add_one(
                .param .u64 add_one_param_data,
                .param .u32 add_one_param_n
            )
            {
                .reg .pred  %p<2>;
                .reg .b32   %r<6>;
                .reg .f32   %f<3>;
                .reg .b64   %rd<5>;

                ld.param.u64    %rd1, [add_one_param_data];
                ld.param.u32    %r2, [add_one_param_n];
                mov.u32         %r3, %ctaid.x;
                mov.u32         %r4, %ntid.x;
                mov.u32         %r5, %tid.x;
                mad.lo.s32      %r1, %r3, %r4, %r5;
                setp.ge.u32     %p1, %r1, %r2;
                @%p1 bra        DONE;
                cvta.to.global.u64  %rd2, %rd1;
                mul.wide.u32    %rd3, %r1, 4;
                add.s64         %rd4, %rd2, %rd3;
                ld.global.f32   %f1, [%rd4];
                add.f32         %f2, %f1, 0f3F800000;
                st.global.f32   [%rd4], %f2;
            DONE:
                ret;
            }
            """;

    private static CudaDriver driver;
    private static int device;
    private static long context;
    /** Why this machine cannot run the class, or null. */
    private static String unavailable;

    @BeforeAll
    static void loadDriver() {
        try {
            driver = CudaDriver.load();
            if (driver.deviceCount() == 0) {
                unavailable = "the CUDA driver reports no device";
            }
        } catch (CudaUnavailableException e) {
            unavailable = e.getMessage();
        }
        if (unavailable != null) {
            System.out.println("CudaDriverGpuTest skipped: " + unavailable);
            return;
        }
        device = driver.device(0);
        context = driver.primaryCtxRetain(device);
        driver.ctxSetCurrent(context);
    }

    /** Per test rather than in @BeforeAll, so every skipped test is counted and carries the reason. */
    @BeforeEach
    void needsGpu() {
        assumeTrue(unavailable == null, "needs an NVIDIA GPU and driver: " + unavailable);
        driver.ctxSetCurrent(context);
    }

    @AfterAll
    static void releaseContext() {
        if (context != 0) {
            driver.ctxSetCurrent(0);
            driver.primaryCtxRelease(device);
        }
    }

    @Test
    void loadIsCachedAndDriverIsRecent() throws CudaUnavailableException {
        assertSame(driver, CudaDriver.load());
        assertTrue(driver.driverVersion() >= 11020, "driver version " + driver.driverVersion());
        System.out.println("CUDA driver " + driver.driverVersion() + " from " + driver.libraryDescription());
    }

    @Test
    void deviceInfoIsSane() {
        CudaDeviceInfo info = driver.deviceInfo(0);
        System.out.println(info);
        assertEquals(device, info.handle());
        assertTrue(!info.name().isBlank(), "name");
        assertEquals(16, info.uuid().length);
        assertTrue(info.uuidString().matches("GPU-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
                info.uuidString());
        assertNotEquals("00000000000000000000000000000000", info.uuidHex());
        assertTrue(info.pciBusId().matches("[0-9a-f]{4,}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]"), info.pciBusId());
        assertTrue(info.computeCapabilityMajor() >= 5, "compute capability " + info.computeCapabilityMajor());
        assertTrue(info.totalMemoryBytes() > 1L << 30, "total memory " + info.totalMemoryBytes());
        assertTrue(info.multiprocessorCount() > 0);
        assertTrue(info.peakMemoryBandwidthBytesPerSecond() > 1e10, "bandwidth " + info.peakMemoryBandwidthBytesPerSecond());
        if (!System.getProperty("os.name").startsWith("Windows")) {
            assertTrue(info.luid().isEmpty(), "LUIDs are a Windows notion");
        }
    }

    @Test
    void primaryContextIsCurrent() {
        assertEquals(context, driver.ctxGetCurrent());
        assertEquals(context, driver.primaryCtxRetain(device), "the primary context is one per device");
        driver.primaryCtxRelease(device);
        driver.ctxSynchronize();
    }

    @Test
    void streamAndEvents() {
        long stream = driver.streamCreate(CudaDriver.STREAM_NON_BLOCKING);
        long start = driver.eventCreate(CudaDriver.EVENT_DEFAULT);
        long end = driver.eventCreate(CudaDriver.EVENT_DEFAULT);
        long ordering = driver.eventCreate(CudaDriver.EVENT_DISABLE_TIMING);
        long other = driver.streamCreate(CudaDriver.STREAM_NON_BLOCKING);
        long buffer = driver.memAlloc(64L << 20);
        try {
            driver.eventRecord(start, stream);
            driver.memsetD32Async(buffer, 7, (64L << 20) / 4, stream);
            driver.eventRecord(end, stream);
            driver.eventRecord(ordering, stream);
            driver.streamWaitEvent(other, ordering);
            driver.streamSynchronize(other);
            assertTrue(driver.eventQuery(ordering), "the waiting stream finished after the event");
            driver.eventSynchronize(end);
            assertTrue(driver.streamQuery(stream));
            float ms = driver.eventElapsedMillis(start, end);
            assertTrue(ms >= 0 && ms < 10_000, "elapsed " + ms + " ms");
            CudaException e = assertThrows(CudaException.class, () -> driver.eventElapsedMillis(ordering, end));
            assertTrue(e.getMessage().contains("cuEventElapsedTime"), e.getMessage());
        } finally {
            driver.memFree(buffer);
            driver.eventDestroy(ordering);
            driver.eventDestroy(end);
            driver.eventDestroy(start);
            driver.streamDestroy(other);
            driver.streamDestroy(stream);
        }
    }

    @Test
    void synchronousRoundTripOfOneMebibyte() {
        int n = 1 << 18;
        long bytes = 4L * n;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment src = arena.allocate(JAVA_INT, n);
            for (int i = 0; i < n; i++) {
                src.setAtIndex(JAVA_INT, i, i * 31 + 7);
            }
            long d = driver.memAlloc(bytes);
            try {
                driver.memcpyHtoD(d, src, bytes);
                MemorySegment dst = arena.allocate(JAVA_INT, n);
                driver.memcpyDtoH(dst, d, bytes);
                assertArrayEquals(src.toArray(JAVA_INT), dst.toArray(JAVA_INT));
            } finally {
                driver.memFree(d);
            }
        }
    }

    @Test
    void streamOrderedAllocationCopiesAndMemset() {
        int n = 1 << 16;
        long bytes = 4L * n;
        long stream = driver.streamCreate(CudaDriver.STREAM_NON_BLOCKING);
        long pinned = driver.memAllocHost(bytes);
        try {
            long pool = driver.deviceGetDefaultMemPool(device);
            driver.memPoolSetReleaseThreshold(pool, 64L << 20);
            long a = driver.memAllocAsync(bytes, stream);
            long b = driver.memAllocAsync(bytes, stream);
            driver.memsetD32Async(a, 0x3F800000, n, stream); // 1.0f
            driver.memcpyDtoDAsync(b, a, bytes, stream);
            driver.memsetD8Async(b, (byte) 0, 4, stream);
            driver.memcpyDtoHAsync(pinned, b, bytes, stream);
            driver.memFreeAsync(a, stream);
            driver.memFreeAsync(b, stream);
            driver.streamSynchronize(stream);
            MemorySegment host = MemorySegment.ofAddress(pinned).reinterpret(bytes);
            assertEquals(0.0f, host.getAtIndex(JAVA_FLOAT, 0));
            assertEquals(1.0f, host.getAtIndex(JAVA_FLOAT, 1));
            assertEquals(1.0f, host.getAtIndex(JAVA_FLOAT, n - 1));

            long c = driver.memAllocAsync(bytes, stream);
            driver.memcpyHtoDAsync(c, pinned, bytes, stream);
            driver.memcpyAsync(pinned, c, 8, stream);
            driver.memFreeAsync(c, stream);
            driver.streamSynchronize(stream);
            driver.memPoolTrimTo(pool, 0);
        } finally {
            driver.memFreeHost(pinned);
            driver.streamDestroy(stream);
        }
    }

    @Test
    void ptxModuleLaunch() {
        int n = 1000;
        long bytes = 4L * n;
        long module = driver.moduleLoadData(ADD_ONE_PTX);
        long stream = driver.streamCreate(CudaDriver.STREAM_NON_BLOCKING);
        try (Arena arena = Arena.ofConfined()) {
            long function = driver.moduleGetFunction(module, "add_one");
            MemorySegment host = arena.allocate(JAVA_FLOAT, n);
            for (int i = 0; i < n; i++) {
                host.setAtIndex(JAVA_FLOAT, i, i * 0.5f);
            }
            long data = driver.memAlloc(bytes);
            try {
                driver.memcpyHtoD(data, host, bytes);
                MemorySegment params = arena.allocate(ADDRESS, 2);
                params.setAtIndex(ADDRESS, 0, arena.allocateFrom(JAVA_LONG, data));
                params.setAtIndex(ADDRESS, 1, arena.allocateFrom(JAVA_INT, n));
                int block = 128;
                driver.launchKernel(function, (n + block - 1) / block, 1, 1, block, 1, 1, 0, stream, params);
                driver.streamSynchronize(stream);
                MemorySegment out = arena.allocate(JAVA_FLOAT, n);
                driver.memcpyDtoH(out, data, bytes);
                for (int i = 0; i < n; i++) {
                    assertEquals(i * 0.5f + 1.0f, out.getAtIndex(JAVA_FLOAT, i), "element " + i);
                }
            } finally {
                driver.memFree(data);
            }
        } finally {
            driver.streamDestroy(stream);
            driver.moduleUnload(module);
        }
    }

    @Test
    void invalidPtxCarriesTheJitLog() {
        String broken = ADD_ONE_PTX.replace("add.f32         %f2, %f1, 0f3F800000;", "add.f32 %f2, %f1, %undeclared;");
        CudaException e = assertThrows(CudaException.class, () -> driver.moduleLoadData(broken));
        System.out.println(e.getMessage());
        assertEquals("cuModuleLoadDataEx", e.function());
        assertEquals(CudaErrors.name(e.result()), e.errorName());
        assertTrue(e.getMessage().contains("JIT log:\n"), e.getMessage());
        assertTrue(e.getMessage().contains("undeclared"), "the log names the offending identifier: " + e.getMessage());
    }

    @Test
    void memoryInfo() {
        CudaDriver.MemoryInfo info = driver.memGetInfo();
        assertTrue(info.totalBytes() > 0 && info.freeBytes() > 0 && info.freeBytes() <= info.totalBytes(), info.toString());
        assertEquals(driver.deviceInfo(0).totalMemoryBytes(), info.totalBytes());
    }

    @Test
    void errorsAreNamedByTheDriver() {
        CudaException e = assertThrows(CudaException.class, () -> driver.memAlloc(1L << 60));
        assertEquals("cuMemAlloc_v2", e.function());
        assertEquals("CUDA_ERROR_OUT_OF_MEMORY", e.errorName());
        assertEquals("cuMemAlloc_v2 failed: CUDA_ERROR_OUT_OF_MEMORY (2): out of memory", e.getMessage());
    }
}
