package dev.javaep.harness.gpu;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.CudaUnavailableException;
import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtEnvironment;
import java.util.Optional;

/** What GPU tests (tag {@code gpu}) share: the CUDA EP device, or a skip that says why there is none. */
final class CudaGpu {
    static final String EP = "JavaCudaExecutionProvider";

    private CudaGpu() {}

    /** The driver, or a visible skip: "no NVIDIA driver here", with the driver's own reason. */
    static CudaDriver driver() {
        try {
            return CudaDriver.load();
        } catch (CudaUnavailableException e) {
            assumeTrue(false, "GPU test skipped: CUDA is not usable here (" + e.getMessage() + ")");
            throw new AssertionError(e);
        }
    }

    /** JavaCudaExecutionProvider's first device in {@code env}, or a visible skip. */
    static EpDevice device(OrtEnvironment env) {
        driver();
        Optional<EpDevice> device = env.epDevices().stream().filter(d -> d.epName().equals(EP)).findFirst();
        assumeTrue(device.isPresent(), "GPU test skipped: the CUDA driver loads but " + EP + " lists no device");
        return device.get();
    }

    /** Free device memory in bytes, read in the device's primary context. */
    static long freeDeviceMemory(CudaDriver driver) {
        int device = driver.device(0);
        long context = driver.primaryCtxRetain(device);
        try {
            driver.ctxSetCurrent(context);
            return driver.memGetInfo().freeBytes();
        } finally {
            driver.primaryCtxRelease(device);
        }
    }
}
