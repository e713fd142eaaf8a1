package dev.javaep.cuda.kernel;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.driver.CudaDriver;
import java.lang.foreign.Arena;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;

/**
 * A GPU kernel test's setup: GPU 0, its driver and a non-blocking stream, opened before each test (the test
 * skipped where there is no GPU, or no NVRTC when {@link #needsNvrtc}) and released after it, with an arena for the
 * test's host buffers that is freed after it too.
 */
@Tag("gpu")
public abstract class GpuTest {
    protected BothBackends gpu;
    protected CudaDriver driver;
    protected CudaDevice device;
    protected long stream;
    protected Arena arena;

    /** Whether the tests compile CUDA C at run time (most kernels do); false for PTX-only tests. */
    protected boolean needsNvrtc() {
        return true;
    }

    @BeforeEach
    void openGpu() {
        gpu = BothBackends.open(needsNvrtc());
        driver = gpu.driver();
        device = gpu.device();
        stream = gpu.stream();
        arena = Arena.ofConfined();
    }

    /**
     * {@code runs} Computes of {@code program} over the same device inputs ({@code inputs} of {@code shapes}, in
     * {@code type}) and one output; the output after each.
     */
    protected java.util.List<float[]> outputsOfRuns(dev.javaep.spi.CompiledNode program, dev.javaep.spi.ElementType type,
                                                    float[][] inputs, long[][] shapes, int runs) {
        java.util.List<float[]> outputs = new java.util.ArrayList<>();
        try (DeviceRunContext c = DeviceRunContext.repeatable(driver, stream, type, 1, inputs, shapes)) {
            for (int i = 0; i < runs; i++) {
                program.compute(c);
                outputs.add(c.output(0));
            }
        }
        return outputs;
    }

    @AfterEach
    void releaseGpu() {
        if (arena != null) {
            arena.close();
        }
        if (gpu != null) {
            gpu.close();
        }
    }
}
