package dev.javaep.cuda;

import static dev.javaep.cuda.kernel.Groups.fused;
import static dev.javaep.cuda.kernel.Groups.group;
import static dev.javaep.cuda.kernel.Groups.node;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.FakeCuda;
import dev.javaep.cuda.driver.FakeCuda.DeviceStat;
import dev.javaep.cuda.kernel.DeviceRunContext;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ElementType;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * What a JavaCuda session makes and releases (its EP, its stream, a compiled Add+Relu group that runs eagerly, is
 * captured as a CUDA graph and replayed) comes and goes 300 times over the stand-in libcuda with its graph functions,
 * leaving no device allocation, executable graph, context retain or live stream behind: the per-session objects the
 * conformance kit's create/release cycles exercise.
 */
class SessionCycleFakeTest {
    private static final int CYCLES = 300;

    @Test
    void sessionsThatComeAndGoLeaveNothingBehind() {
        FakeCuda fake = FakeCuda.buildWithGraphs();
        fake.loseContext(0);
        CudaDriver driver = fake.driver();
        try (CudaDevice device = CudaDevice.open(driver, 0)) {
            device.makeCurrent();
            long allocations = fake.deviceStat(DeviceStat.LIVE_DEVICE_ALLOCATIONS, 0);
            long retains = fake.deviceStat(DeviceStat.CONTEXT_RETAINS, 0);
            long graphLaunches = fake.counter("fake_graph_launches");
            long graphs = fake.counter("fake_live_graph_execs"); // the fake's state is the JVM's: other tests' count
            for (int cycle = 0; cycle < CYCLES; cycle++) {
                JavaCudaExecutionProvider ep = new JavaCudaExecutionProvider(device);
                CudaStream stream = new CudaStream(device);
                CompiledNode program = ep.compile(group(node("Add", List.of("x", "y"), "sum"),
                        node("Relu", List.of("sum"), "out")), fused(List.of("x", "y"), List.of("out")));
                try (DeviceRunContext run = DeviceRunContext.repeatable(driver, stream.handle(), ElementType.FLOAT, 1,
                        new float[][] {{-1, 2}, {0.5f, 0.5f}}, new long[][] {{2}, {2}})) {
                    for (int i = 0; i < 3; i++) { // eager, captured, replayed
                        program.compute(run);
                    }
                    assertArrayEquals(new float[] {0, 2.5f}, run.output(0));
                } finally {
                    program.close();
                    stream.close();
                }
                assertFalse(CudaStream.isLive(stream.handle()), "a closed stream leaves the live registry");
            }
            assertEquals(2L * CYCLES, fake.counter("fake_graph_launches") - graphLaunches, "a capture and a replay per cycle");
            assertEquals(graphs, fake.counter("fake_live_graph_execs"), "every executable graph destroyed");
            assertEquals(allocations, fake.deviceStat(DeviceStat.LIVE_DEVICE_ALLOCATIONS, 0), "no device allocation left");
            assertEquals(retains, fake.deviceStat(DeviceStat.CONTEXT_RETAINS, 0), "no context retained per session");
        }
    }
}
