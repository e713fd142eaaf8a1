package dev.javaep.cuda.kernel;

import static dev.javaep.cuda.driver.FakeCuda.K_EVENT;
import static dev.javaep.cuda.kernel.Groups.fused;
import static dev.javaep.cuda.kernel.Groups.group;
import static dev.javaep.cuda.kernel.Groups.node;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cuda.FakeDeviceTest;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.spi.Graph;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.StepProfiler;
import dev.javaep.spi.Tensor;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A compiled group's steps under ORT's profiler, over the stand-in libcuda (whose cuEventElapsedTime answers 1.5 ms):
 * each device step gets a start and an end event and is noted with a timing the profiler reads
 * later; the events go back to the group's pool once read, so later profiled Runs create none; an unprofiled Run
 * records no event at all.
 */
class CudaStepTimerTest extends FakeDeviceTest {
    private static final long STREAM = 0x5A12;

    record Noted(String opType, String node, boolean onDevice, long hostNanos, StepProfiler.DeviceTiming timing) {}

    /** What the bridge's profiler would be handed. */
    static final class Notes implements StepProfiler {
        final List<Noted> steps = new ArrayList<>();

        @Override
        public void hostStep(String opType, String nodeName, long startNanos, long durationNanos) {
            steps.add(new Noted(opType, nodeName, false, durationNanos, null));
        }

        @Override
        public void deviceStep(String opType, String nodeName, long queuedNanos, long queueingNanos, DeviceTiming timing) {
            steps.add(new Noted(opType, nodeName, true, queueingNanos, timing));
        }
    }

    /** ORT's KernelContext, with or without a profile being taken. */
    private static DeviceRunContext run(CudaSubgraphProgram program, StepProfiler profiler) {
        DeviceRunContext run = new DeviceRunContext(driver, STREAM, 1,
                new float[][] {{-2f, -1f, 0f, 1f, 2f, 3f}, {1f, 2f, -1f, 1f, 2f, -1f}}, new long[][] {{2, 3}, {2, 3}});
        program.compute(new KernelContext() {
            @Override public int inputCount() { return run.inputCount(); }
            @Override public int outputCount() { return run.outputCount(); }
            @Override public Tensor input(int index) { return run.input(index); }
            @Override public Tensor output(int index, long[] shape) { return run.output(index, shape); }
            @Override public long computeStream() { return run.computeStream(); }
            @Override public StepProfiler stepProfiler() { return profiler; }
        });
        return run;
    }

    @Test
    void eachDeviceStepIsTimedByAPooledPairOfEventsOnTheRunsStream() {
        device.makeCurrent();
        Graph g = group(node("Add", List.of("x", "y"), "sum"), node("Relu", List.of("sum"), "relu"),
                node("Mul", List.of("relu", "y"), "out"));
        try (CudaSubgraphProgram program = CudaSubgraphProgram.compile(g, fused(List.of("x", "y"), List.of("out")), device)) {
            fake.loseContext(0);
            long eventBefore = fake.last(K_EVENT);
            run(program, null).close();
            assertEquals(eventBefore, fake.last(K_EVENT), "an unprofiled Run records no event");
            assertEquals(null, program.stepTimerForTests(), "nor makes a timer");

            Notes notes = new Notes();
            try (DeviceRunContext profiled = run(program, notes)) {
                assertArrayEquals(new float[] {0f, 2f, 0f, 2f, 8f, -2f}, profiled.output(0), 0f, "the outputs are the same");
            }
            assertEquals(List.of("Add", "Relu", "Mul"), notes.steps.stream().map(Noted::opType).toList());
            assertEquals(0xE000 + CudaDriver.EVENT_DEFAULT, fake.last(K_EVENT), "timing events were recorded");
            for (Noted step : notes.steps) {
                assertTrue(step.onDevice(), step::toString);
                assertTrue(step.hostNanos() >= 0, step::toString);
                assertEquals(1_500_000L, step.timing().deviceNanos(false), "the fake's 1.5 ms between the step's events");
            }
            assertEquals(0, program.stepTimerForTests().pooled(), "the profiler holds all six events");
            notes.steps.forEach(s -> s.timing().release());
            assertEquals(6, program.stepTimerForTests().pooled(), "released: back in the pool");

            Notes again = new Notes();
            run(program, again).close();
            assertEquals(3, again.steps.size());
            assertEquals(0, program.stepTimerForTests().pooled(), "the second profiled Run reuses the pool's events");
            again.steps.forEach(s -> s.timing().release());
        }
    }
}
