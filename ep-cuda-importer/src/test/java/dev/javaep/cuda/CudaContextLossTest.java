package dev.javaep.cuda;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.CudaDriver.ContextLoss;
import dev.javaep.cuda.driver.CudaErrors;
import dev.javaep.cuda.driver.CudaException;
import dev.javaep.cuda.driver.FakeCuda;
import dev.javaep.cuda.kernel.CudaSubgraphProgram;
import dev.javaep.cuda.kernel.DeviceRunContext;
import dev.javaep.ort.OrtErrorCode;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A GPU fault stays contained, against the stand-in libcuda (whose {@code fault_store} kernel loses its
 * context like a kernel storing to address 8 does on a GPU): the first error names the fault, the device
 * records that its context is lost, every later call on it fails fast without reaching the driver, releases
 * are quiet, and the other device keeps working. {@code CudaContextLossGpuTest} does the same on a GPU.
 */
class CudaContextLossTest {
    private static final String LOST = "javaep: CUDA device 0 (Fake GPU 10) is unusable: its context was lost at %s"
            + " with CUDA_ERROR_ILLEGAL_ADDRESS (a kernel faulted); restart the process to use this GPU again";

    private static FakeCuda fake;
    private CudaDriver driver;
    private CudaDevice device;

    @BeforeAll
    static void buildFake() {
        fake = FakeCuda.build();
    }

    /** A driver per test: each remembers its own lost contexts. */
    @BeforeEach
    void freshDriver() {
        fake.loseContext(0);
        driver = fake.driver();
        device = new CudaDevice(driver, driver.deviceInfo(0));
    }

    @AfterEach
    void clearTheFault() {
        assertDoesNotThrow(device::close, "closing a lost device is quiet");
        fake.loseContext(0);
    }

    private DeviceRunContext runContext(CudaDriver d, long stream) {
        return new DeviceRunContext(d, stream, 1, new float[][] {{-1, 2}, {0.5f, 0.5f}}, new long[][] {{2}, {2}});
    }

    @Test
    void theStickyCodesAreTheOnesCudaDocumentsAsFatalToTheContext() {
        assertEquals("a kernel faulted", CudaErrors.contextLossCause(700));
        assertEquals("a kernel faulted", CudaErrors.contextLossCause(719)); // LAUNCH_FAILED
        assertEquals("a kernel faulted", CudaErrors.contextLossCause(716)); // MISALIGNED_ADDRESS
        assertEquals("a kernel faulted", CudaErrors.contextLossCause(715)); // ILLEGAL_INSTRUCTION
        assertEquals("a kernel faulted", CudaErrors.contextLossCause(714)); // HARDWARE_STACK_ERROR
        assertEquals("the GPU reported an uncorrectable ECC error", CudaErrors.contextLossCause(214));
        assertEquals("a device-side assert failed", CudaErrors.contextLossCause(710));
        assertNull(CudaErrors.contextLossCause(2), "out of memory is not fatal to the context");
        assertNull(CudaErrors.contextLossCause(1));
        assertNull(CudaErrors.contextLossCause(400));
        assertNull(CudaErrors.contextLossCause(600));
    }

    @Test
    void aFaultSurfacesOnceAndEveryLaterCallFailsFast() {
        LossFixture held = LossFixture.open(device);
        CudaStream stream = held.stream();
        DeviceRunContext context = held.context();
        assertArrayEquals(new float[] {0, 2.5f}, context.output(0), "works before the fault");

        FaultingKernel.launch(device, stream.handle());
        assertFalse(device.isLost(), "the launch itself succeeds, as on a GPU");
        CudaException first = assertThrows(CudaException.class, stream::flush);
        assertEquals(FakeCuda.ILLEGAL_ADDRESS, first.result());
        assertTrue(first.getMessage().startsWith("cuStreamSynchronize failed: CUDA_ERROR_ILLEGAL_ADDRESS (700): "
                + "an illegal memory access was encountered\nThe CUDA context is unusable from now on (a kernel faulted)"),
                first.getMessage());
        assertTrue(device.isLost());
        ContextLoss loss = device.contextLoss().orElseThrow();
        assertEquals("cuStreamSynchronize", loss.function());
        assertEquals("CUDA_ERROR_ILLEGAL_ADDRESS", loss.errorName());
        assertEquals("a kernel faulted", loss.cause());
        long callsSoFar = fake.callsInLostContext();

        Map<String, Runnable> laterCalls = held.laterCalls(new CudaExternalResourceImporter(device, false));
        laterCalls.put("notification WaitOnDevice", () -> held.notification().waitOnDevice(stream.handle()));
        laterCalls.put("MemcpyToHost", () -> new CudaCopyKernels.DeviceToHost(device).compute(context));
        laterCalls.put("another CudaDevice on the same context", () -> CudaDevice.open(driver, 0).makeCurrent());
        laterCalls.forEach((call, executable) -> {
            CudaContextLostException e = assertThrows(CudaContextLostException.class, executable::run, call);
            assertEquals(LOST.formatted("cuStreamSynchronize"), e.getMessage(), call);
            assertEquals(OrtErrorCode.EP_FAIL, e.code(), call);
            assertEquals(loss, e.loss());
        });
        assertEquals(callsSoFar, fake.callsInLostContext(), "no later call reached the lost context");

        assertDoesNotThrow(held::release, "releases after the loss are quiet");
        assertEquals(callsSoFar, fake.callsInLostContext(), "and make no CUDA calls");
        assertThrows(IllegalArgumentException.class, () -> held.allocator().free(held.deviceBuffer()),
                "the bookkeeping still holds");
    }

    @Test
    void aFaultThatSurfacesInsideARunFailsThatRunAndFastAfter() {
        CudaStream stream = new CudaStream(device);
        CudaSubgraphProgram program = LossFixture.addRelu(device);
        DeviceRunContext context = runContext(driver, stream.handle());

        FaultingKernel.launch(device, stream.handle());
        CudaException first = assertThrows(CudaException.class, () -> program.compute(context));
        assertEquals("CUDA_ERROR_ILLEGAL_ADDRESS", first.errorName());
        assertEquals(0, first.getSuppressed().length, "returning the Run's memory made no second failing call");
        ContextLoss loss = device.contextLoss().orElseThrow();
        long callsSoFar = fake.callsInLostContext();

        CudaContextLostException second = assertThrows(CudaContextLostException.class, () -> program.compute(context));
        assertEquals(LOST.formatted(loss.function()), second.getMessage());
        assertEquals(callsSoFar, fake.callsInLostContext());
    }

    @Test
    void theGpuTestsProbeSaysTheSameOverTheStandIn() {
        ByteArrayOutputStream lines = new ByteArrayOutputStream();
        CudaContextLossProbe.run(driver, new PrintStream(lines, true, StandardCharsets.UTF_8));
        CudaContextLossGpuTest.assertContained(lines.toString(StandardCharsets.UTF_8));
    }

    @Test
    void theOtherDeviceKeepsWorking() {
        CudaStream stream = new CudaStream(device);
        FaultingKernel.launch(device, stream.handle());
        assertThrows(CudaException.class, stream::flush);
        assertTrue(device.isLost());

        try (CudaDevice other = new CudaDevice(driver, driver.deviceInfo(1))) {
            assertFalse(other.isLost());
            CudaStream otherStream = new CudaStream(other);
            CudaDeviceAllocator allocator = new CudaDeviceAllocator(other);
            allocator.free(allocator.allocate(256, otherStream.handle()));
            DeviceRunContext context = runContext(driver, otherStream.handle());
            LossFixture.addRelu(other).compute(context);
            assertArrayEquals(new float[] {0, 2.5f}, context.output(0));
            context.close();
            otherStream.close(); // (the stand-in has no cuMemPoolTrimTo, which the allocator's close calls)
        }
        assertThrows(CudaContextLostException.class, device::makeCurrent, "device 0 stays lost");
    }
}
