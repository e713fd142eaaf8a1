package dev.javaep.cuda.kernel;

import static dev.javaep.cuda.kernel.Groups.fused;
import static dev.javaep.cuda.kernel.Groups.group;
import static dev.javaep.cuda.kernel.Groups.node;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.CudaContextLostException;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.CudaException;
import dev.javaep.cuda.driver.FakeCuda;
import dev.javaep.spi.ElementType;
import java.lang.management.ManagementFactory;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * CUDA graphs over the stand-in libcuda built with its graph functions: they go through {@link CudaDriver}'s error
 * path (a sticky error at cuGraphLaunch marks the context lost), and a compiled group's steady-state replay (the same
 * bound inputs and outputs Run after Run) finds its graph without building a key and allocates nothing.
 */
class CudaGraphsFakeTest {
    private static final long STREAM = 0x5A11;
    private static FakeCuda fake;

    @BeforeAll
    static void buildFake() {
        fake = FakeCuda.buildWithGraphs();
    }

    private static long allocatedBytes() {
        return ((com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean()).getCurrentThreadAllocatedBytes();
    }

    @Test
    void aStickyErrorAtGraphLaunchMarksTheContextLost() {
        CudaDriver driver = fake.driver(); // lost contexts are remembered per driver
        dev.javaep.cuda.CudaDevice device = dev.javaep.cuda.CudaDevice.open(driver, 0);
        device.makeCurrent();
        assertTrue(driver.hasGraphs(), "the stand-in exports the graph functions");
        driver.streamBeginCapture(STREAM);
        long exec = driver.graphInstantiate(driver.streamEndCapture(STREAM));
        try {
            driver.graphLaunch(exec, STREAM);
            fake.loseContext(FakeCuda.ILLEGAL_ADDRESS);
            CudaException e = assertThrows(CudaException.class, () -> driver.graphLaunch(exec, STREAM));
            assertEquals(FakeCuda.ILLEGAL_ADDRESS, e.result());
            assertTrue(device.isLost(), "cuGraphLaunch's sticky error marked the device's context lost");
            assertThrows(CudaContextLostException.class, device::makeCurrent, "later calls fail fast");
        } finally {
            fake.loseContext(0);
            fake.driver().graphExecDestroy(exec); // through a driver whose context is not lost: the fake's count stays true
            device.close();
        }
    }

    @Test
    void aSteadyStateReplayFindsItsGraphWithoutAllocating() {
        CudaDriver driver = fake.driver();
        dev.javaep.cuda.CudaDevice device = dev.javaep.cuda.CudaDevice.open(driver, 0);
        try {
            device.makeCurrent();
            CudaSubgraphProgram program = CudaSubgraphProgram.compile(group(node("Add", List.of("x", "y"), "sum"),
                    node("Relu", List.of("sum"), "out")), fused(List.of("x", "y"), List.of("out")), device);
            float[] x = {-1, 2, -3, 4};
            float[] y = {0.5f, 0.5f, 0.5f, 0.5f};
            try (DeviceRunContext bound = DeviceRunContext.repeatable(driver, STREAM, ElementType.FLOAT, 1,
                    new float[][] {x, y}, new long[][] {{4}, {4}})) {
                program.compute(bound); // eager: records the plan and the output shapes
                program.compute(bound); // captured and launched
                assertArrayEquals(new float[] {0, 2.5f, 0, 4.5f}, bound.output(0));
                long launches = fake.counter("fake_graph_launches");
                int runs = 2_000;
                double lowest = Double.MAX_VALUE;
                for (int batch = 0; batch < 10; batch++) {
                    long before = allocatedBytes();
                    for (int i = 0; i < runs; i++) {
                        program.compute(bound);
                    }
                    lowest = Math.min(lowest, (allocatedBytes() - before) / (double) runs);
                }
                assertEquals(10L * runs, fake.counter("fake_graph_launches") - launches, "every Run replayed");
                assertArrayEquals(new long[] {1, 10L * runs}, program.graphCounts(), "one capture, every later Run a replay");
                // before issue 13: 184 bytes (a key's arrays, record and signature, a Long, the Run's value array)
                assertTrue(lowest < 8, "bytes per replayed Run: " + lowest);
            }
            long live = fake.counter("fake_live_graph_execs");
            program.close();
            assertEquals(live - 1, fake.counter("fake_live_graph_execs"), "close destroyed the executable graph");
        } finally {
            device.close();
        }
    }
}
