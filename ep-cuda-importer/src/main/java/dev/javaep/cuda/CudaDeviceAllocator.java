package dev.javaep.cuda;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.spi.DeviceAllocator;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

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
    /** The stream each live allocation was ordered on ({@link #NO_STREAM} for cuMemAlloc). */
    private final Map<Long, Long> streamOf = new ConcurrentHashMap<>();
    private final AtomicLong liveBytes = new AtomicLong();
    private final Map<Long, Long> sizeOf = new ConcurrentHashMap<>();

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
        return track(driver.memAlloc(Math.max(bytes, 1)), bytes, NO_STREAM);
    }

    @Override
    public long allocate(long bytes, long stream) {
        if (stream == NO_STREAM) {
            return allocate(bytes);
        }
        device.makeCurrent();
        return track(driver.memAllocAsync(Math.max(bytes, 1), stream), bytes, stream);
    }

    private long track(long address, long bytes, long stream) {
        streamOf.put(address, stream);
        sizeOf.put(address, bytes);
        liveBytes.addAndGet(bytes);
        return address;
    }

    @Override
    public void free(long address) {
        Long stream = streamOf.remove(address);
        if (stream == null) {
            throw new IllegalArgumentException("javaep: JavaCuda allocator asked to free 0x" + Long.toHexString(address)
                    + ", which it did not allocate (or already freed)");
        }
        liveBytes.addAndGet(-sizeOf.remove(address));
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
    public Map<String, String> statistics() {
        return Map.of("InUse", Long.toString(liveBytes.get()), "NumAllocs", Integer.toString(streamOf.size()));
    }

    @Override
    public void close() {
        device.makeCurrent();
        for (Long address : streamOf.keySet().toArray(Long[]::new)) {
            // ORT frees everything it allocated before releasing the allocator; anything left is ours to return.
            free(address);
        }
        driver.ctxSynchronize();
        driver.memPoolTrimTo(pool, 0);
    }
}
