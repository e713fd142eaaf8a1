package dev.javaep.cuda;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.spi.DeviceAllocator;

/**
 * Device memory from the device's default memory pool, stream-ordered where ORT names the stream
 * ({@code AllocOnStream} → cuMemAllocAsync; the free is queued on the same stream), so memory is
 * reused across Runs without device-wide synchronisation. The pool keeps freed memory cached
 * (release threshold raised) until the allocator closes, when it is trimmed back to the driver.
 */
final class CudaDeviceAllocator implements DeviceAllocator {
    private static final long NO_STREAM = 0L;

    private final CudaDevice device;
    private final CudaDriver driver;
    private final long pool;
    /** The stream each live allocation is ordered on ({@link #NO_STREAM} for cuMemAlloc), by address. */
    private final AllocationStreams streamOf = new AllocationStreams();

    CudaDeviceAllocator(CudaDevice device) {
        this.device = device;
        this.driver = device.driver();
        device.makeCurrent();
        this.pool = driver.deviceGetDefaultMemPool(device.info().handle());
        driver.memPoolSetReleaseThreshold(pool, Long.MAX_VALUE);
    }

    @Override
    public long allocate(long bytes) {
        device.makeCurrent();
        return track(driver.memAlloc(Math.max(bytes, 1)), NO_STREAM);
    }

    @Override
    public long allocate(long bytes, long stream) {
        if (stream == NO_STREAM) {
            return allocate(bytes);
        }
        device.makeCurrent();
        return track(driver.memAllocAsync(Math.max(bytes, 1), stream), stream);
    }

    private long track(long address, long stream) {
        streamOf.put(address, stream);
        return address;
    }

    @Override
    public void free(long address) {
        long stream = streamOf.remove(address);
        if (stream == AllocationStreams.ABSENT) {
            throw new IllegalArgumentException("javaep: JavaCuda allocator asked to free 0x" + Long.toHexString(address)
                    + ", which it did not allocate (or already freed)");
        }
        if (device.isLost()) {
            return; // the memory went with the lost context; ORT frees after a failed Run, quietly
        }
        device.makeCurrent();
        if (stream == NO_STREAM) {
            driver.memFree(address);
        } else if (CudaStream.isLive(stream)) {
            driver.memFreeAsync(address, stream);
        } else {
            // The stream was destroyed after synchronising: nothing queued on it can still use the memory.
            driver.memFreeAsync(address, 0L);
        }
    }

    @Override
    public void close() {
        if (device.isLost()) {
            streamOf.clear();
            return;
        }
        device.makeCurrent();
        for (long address : streamOf.addresses()) {
            // ORT frees everything it allocated before releasing the allocator; anything left is ours to return.
            free(address);
        }
        driver.ctxSynchronize();
        driver.memPoolTrimTo(pool, 0);
    }
}
