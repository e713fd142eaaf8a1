package dev.javaep.cuda;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.CudaUnavailableException;

/** For tests tagged {@code gpu}: the real driver with at least one device, or the calling test skipped with the driver's reason. */
public final class GpuOrSkip {
    private static final String UNAVAILABLE = unavailable();

    private GpuOrSkip() {}

    private static String unavailable() {
        try {
            return CudaDriver.load().deviceCount() == 0 ? "the CUDA driver reports no device" : null;
        } catch (CudaUnavailableException e) {
            return e.getMessage();
        }
    }

    /** The process's driver; skips the calling test (with the reason) where there is no NVIDIA GPU. */
    public static CudaDriver driver() {
        assumeTrue(UNAVAILABLE == null, () -> "needs an NVIDIA GPU and driver: " + UNAVAILABLE);
        try {
            return CudaDriver.load();
        } catch (CudaUnavailableException e) {
            throw new IllegalStateException(e);
        }
    }
}
