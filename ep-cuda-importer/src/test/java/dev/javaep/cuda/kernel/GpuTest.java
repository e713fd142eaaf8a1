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
