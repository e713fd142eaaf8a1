package dev.javaep.cuda;

import dev.javaep.cuda.driver.CudaDeviceInfo;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.kernel.CudaKernelLibrary;

/**
 * One CUDA device as the EP uses it: its primary context (retained on first use, so listing devices
 * costs no context) and its kernel module (JIT-compiled from PTX once per process). Shared by every
 * session, allocator and stream on the device.
 */
public final class CudaDevice implements AutoCloseable {
    private final CudaDriver driver;
    private final CudaDeviceInfo info;
    private volatile long context;
    private volatile CudaKernelLibrary kernels;

    CudaDevice(CudaDriver driver, CudaDeviceInfo info) {
        this.driver = driver;
        this.info = info;
    }

    /** Device {@code ordinal}, for tools that use the EP's kernels outside ORT (benchmarks). Close it when done. */
    public static CudaDevice open(CudaDriver driver, int ordinal) {
        return new CudaDevice(driver, driver.deviceInfo(ordinal));
    }

    public CudaDriver driver() {
        return driver;
    }

    public CudaDeviceInfo info() {
        return info;
    }

    public int ordinal() {
        return info.ordinal();
    }

    /**
     * Makes the device's primary context current on the calling thread. ORT calls in on threads of
     * its own choosing, so every entry point that touches CUDA starts here (cuCtxSetCurrent is cheap).
     */
    public void makeCurrent() {
        long ctx = context;
        if (ctx == 0) {
            ctx = retainContext();
        }
        driver.ctxSetCurrent(ctx);
    }

    private synchronized long retainContext() {
        if (context == 0) {
            context = driver.primaryCtxRetain(info.handle());
        }
        return context;
    }

    /** The kernels, loaded into the device's context on first use. The caller has made the context current. */
    public CudaKernelLibrary kernels() {
        CudaKernelLibrary library = kernels;
        if (library == null) {
            synchronized (this) {
                library = kernels;
                if (library == null) {
                    makeCurrent();
                    kernels = library = CudaKernelLibrary.load(driver, info);
                }
            }
        }
        return library;
    }

    /** Blocks until all work on the device's context is done. */
    public void synchronize() {
        if (context != 0) {
            makeCurrent();
            driver.ctxSynchronize();
        }
    }

    @Override
    public synchronized void close() {
        if (context == 0) {
            return;
        }
        try {
            driver.ctxSetCurrent(context);
            if (kernels != null) {
                kernels.close();
                kernels = null;
            }
        } finally {
            driver.primaryCtxRelease(info.handle());
            context = 0;
        }
    }

    @Override
    public String toString() {
        return "CUDA device " + info.ordinal() + " (" + info.name() + ", " + info.pciBusId() + ")";
    }
}
