package dev.javaep.cuda.kernel;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.driver.CudaDriver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;

/**
 * A GPU kernel test's setup: GPU 0, its driver and a non-blocking stream, opened before each test (the test
 * skipped where there is no GPU, or no NVRTC when {@link #needsNvrtc}) and released after it.
 */
@Tag("gpu")
public abstract class GpuTest {
    protected BothBackends gpu;
    protected CudaDriver driver;
    protected CudaDevice device;
    protected long stream;

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
    }

    @AfterEach
    void releaseGpu() {
        if (gpu != null) {
            gpu.close();
        }
    }
}
