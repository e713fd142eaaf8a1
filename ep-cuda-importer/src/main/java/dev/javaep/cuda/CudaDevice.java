package dev.javaep.cuda;

import dev.javaep.cuda.driver.CudaDeviceInfo;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.CudaDriver.ContextLoss;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import java.util.Optional;

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
     *
     * @throws CudaContextLostException when a sticky error made the context unusable: every entry point
     *     fails fast with the first error's name and call instead of queueing more work on a dead context
     */
    public void makeCurrent() {
        long ctx = context;
        if (ctx == 0) {
            ctx = retainContext();
        }
        Optional<ContextLoss> loss = driver.contextLoss(ctx);
        if (loss.isPresent()) {
            throw new CudaContextLostException(this, loss.get());
        }
        driver.ctxSetCurrent(ctx);
    }

    /**
     * Whether a sticky error made this device's context unusable ({@link #makeCurrent} then throws). Release
     * paths ask first and skip their CUDA calls: what a lost context held is gone with it, and a release
     * that failed with the same error again would only bury the first one in the log.
     */
    public boolean isLost() {
        long ctx = context;
        return ctx != 0 && driver.contextLoss(ctx).isPresent();
    }

    /** The sticky error that made the context unusable, if one did. */
    public Optional<ContextLoss> contextLoss() {
        long ctx = context;
        return ctx == 0 ? Optional.empty() : driver.contextLoss(ctx);
    }

    /** The primary context's handle, retained on first use: a copy between devices names both contexts. */
    long contextHandle() {
        long ctx = context;
        return ctx != 0 ? ctx : retainContext();
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

    /**
     * Unloads the kernels and releases the primary context. On a lost context the module is not
     * unloaded (the driver would only return the sticky error again); the release still happens, so the
     * driver can destroy the context once nothing else holds it.
     */
    @Override
    public synchronized void close() {
        if (context == 0) {
            return;
        }
        boolean lost = isLost();
        try {
            if (!lost) {
                driver.ctxSetCurrent(context);
                if (kernels != null) {
                    kernels.close();
                }
            }
            // the context goes when its last retain does: its cuDNN handle must not outlive it
            dev.javaep.cuda.dnn.Cudnn.releaseIfLoaded(context, lost);
        } finally {
            kernels = null;
            try {
                driver.primaryCtxRelease(info.handle());
            } catch (RuntimeException e) {
                if (!lost) {
                    throw e;
                }
            } finally {
                context = 0;
            }
        }
    }

    @Override
    public String toString() {
        return "CUDA device " + info.ordinal() + " (" + info.name() + ", " + info.pciBusId() + ")";
    }
}
