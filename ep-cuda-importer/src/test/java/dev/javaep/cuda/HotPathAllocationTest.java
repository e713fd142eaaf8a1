package dev.javaep.cuda;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.CudaException;
import dev.javaep.cuda.driver.FakeCuda;
import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.cuda.kernel.DeviceRunContext;
import dev.javaep.cuda.kernel.Groups;
import dev.javaep.cuda.kernel.KernelArguments;
import dev.javaep.cuda.kernel.KernelSlot;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The launch path allocates nothing on the Java heap (issue 13), over the stand-in libcuda: cuLaunchKernel is invoked
 * without a capturing lambda, yet a sticky error it returns still marks the context lost; a kernel slot's key
 * carries the element types it was packed from.
 */
class HotPathAllocationTest extends FakeDeviceTest {
    private static final int BATCHES = 20;
    private static final int LAUNCHES = 2_000;

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    /**
     * The fewest heap bytes per call of {@code call} over {@link #BATCHES} batches of {@link #LAUNCHES} calls: the first
     * batches may still run interpreted code or JIT compiler bookkeeping.
     */
    private static double lowestBytesPerCall(Runnable call) {
        double lowest = Double.MAX_VALUE;
        for (int batch = 0; batch < BATCHES; batch++) {
            long before = allocatedBytes();
            for (int i = 0; i < LAUNCHES; i++) {
                call.run();
            }
            lowest = Math.min(lowest, (allocatedBytes() - before) / (double) LAUNCHES);
        }
        return lowest;
    }

    @Test
    void aKernelLaunchAllocatesNothing() {
        device.makeCurrent();
        long module = driver.moduleLoadData("// fake module");
        long function = driver.moduleGetFunction(module, "add_one");
        long data = driver.memAlloc(4);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment params = arena.allocate(ADDRESS, 2);
            params.setAtIndex(ADDRESS, 0, arena.allocateFrom(JAVA_LONG, data));
            params.setAtIndex(ADDRESS, 1, arena.allocateFrom(JAVA_INT, 1));
            double bytes = lowestBytesPerCall(() -> driver.launchKernel(function, 1, 1, 1, 1, 1, 1, 0, 0L, params));
            assertTrue(bytes < 1, "bytes allocated per cuLaunchKernel: " + bytes);
        } finally {
            driver.memFree(data);
            driver.moduleUnload(module);
        }
    }

    @Test
    void packingAKernelsArgumentsAllocatesNothingAndTheDriverReadsThem() {
        long[] dims = {2, 3, 4};
        float[] params = {0.5f};
        double bytes = lowestBytesPerCall(() -> KernelArguments.begin().u64(0x1000).u32(2).longs(dims, 8).floats(params, 8)
                .i64(7).f32(1f));
        assertTrue(bytes < 1, "bytes allocated per argument block: " + bytes);

        device.makeCurrent();
        long module = driver.moduleLoadData("// fake module");
        long data = driver.memAlloc(8);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment two = arena.allocate(JAVA_FLOAT, 2);
            driver.memcpyHtoD(data, two, 8);
            // add_one(float *data, unsigned n) reads its arguments through the pointer table
            driver.launchKernel(driver.moduleGetFunction(module, "add_one"), 1, 1, 1, 2, 1, 1, 0, 0L,
                    KernelArguments.begin().u64(data).u32(2).pointers());
            driver.memcpyDtoH(two, data, 8);
            assertEquals(1f, two.getAtIndex(JAVA_FLOAT, 0));
            assertEquals(1f, two.getAtIndex(JAVA_FLOAT, 1));
        } finally {
            driver.memFree(data);
            driver.moduleUnload(module);
        }
    }

    @Test
    void anEagerAddAndReluAllocateNothingPerCompute() {
        device.makeCurrent();
        for (String op : List.of("Add", "Relu")) {
            CompiledNode node = CudaOps.compile(op.equals("Add") ? Groups.node("Add", List.of("x", "y"), "out")
                    : Groups.node("Relu", List.of("x"), "out"), device);
            float[][] inputs = op.equals("Add") ? new float[][] {{-1, 2, -3, 4}, {1, 1, 1, 1}} : new float[][] {{-1, 2, -3, 4}};
            long[][] shapes = op.equals("Add") ? new long[][] {{4}, {4}} : new long[][] {{4}};
            try (DeviceRunContext run = DeviceRunContext.repeatable(driver, 0x5A11, ElementType.FLOAT, 1, inputs, shapes)) {
                double bytes = lowestBytesPerCall(() -> node.compute(run));
                assertTrue(bytes < 1, op + ": bytes allocated per Compute: " + bytes);
                assertEquals(op.equals("Add") ? List.of(0f, 3f, -2f, 5f) : List.of(0f, 2f, 0f, 4f),
                        java.util.stream.IntStream.range(0, 4).mapToObj(i -> run.output(0)[i]).toList());
            } finally {
                node.close();
            }
        }
    }

    @Test
    void aStickyErrorFromALaunchStillMarksTheContextLost() {
        CudaDriver own = fake.driver(); // a driver of its own: lost contexts are remembered per driver
        CudaDevice lost = CudaDevice.open(own, 1);
        lost.makeCurrent();
        long module = own.moduleLoadData("// fake module");
        try {
            long function = own.moduleGetFunction(module, "add_one");
            fake.loseContext(FakeCuda.ILLEGAL_ADDRESS);
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment params = arena.allocate(ADDRESS, 2);
                CudaException e = assertThrows(CudaException.class,
                        () -> own.launchKernel(function, 1, 1, 1, 1, 1, 1, 0, 0L, params));
                assertEquals(FakeCuda.ILLEGAL_ADDRESS, e.result());
            }
            assertTrue(own.contextLoss(lost.contextHandle()).isPresent(), "the launch's sticky error lost the context");
        } finally {
            fake.loseContext(0);
            own.moduleUnload(module);
            lost.close();
        }
    }

    @Test
    void aKernelSlotKeyCarriesItsElementTypes() {
        long key = KernelSlot.key(ElementType.FLOAT16, ElementType.INT64, ElementType.DOUBLE);
        assertEquals(ElementType.FLOAT16, KernelSlot.type(key, 0));
        assertEquals(ElementType.INT64, KernelSlot.type(key, 1));
        assertEquals(ElementType.DOUBLE, KernelSlot.type(key, 2));
        assertTrue(KernelSlot.key(ElementType.FLOAT, ElementType.FLOAT16) != KernelSlot.key(ElementType.FLOAT16,
                ElementType.FLOAT), "the order of the types is part of the key");
    }
}
