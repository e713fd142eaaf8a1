package dev.javaep.cuda;

import dev.javaep.spi.DeviceAllocator;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/** Page-locked host memory (cuMemAllocHost) for the HOST_ACCESSIBLE memory space: the host reads it, copies to the GPU are asynchronous. */
final class CudaPinnedAllocator implements DeviceAllocator {
    private final CudaDevice device;
    private final Set<Long> live = ConcurrentHashMap.newKeySet();

    CudaPinnedAllocator(CudaDevice device) {
        this.device = device;
    }

    @Override
    public long allocate(long bytes) {
        device.makeCurrent();
        long address = device.driver().memAllocHost(Math.max(bytes, 1));
        live.add(address);
        return address;
    }

    @Override
    public void free(long address) {
        if (!live.remove(address)) {
            throw new IllegalArgumentException("javaep: JavaCuda pinned allocator asked to free 0x" + Long.toHexString(address)
                    + ", which it did not allocate (or already freed)");
        }
        if (device.isLost()) {
            return; // page-locked memory belongs to the context, and went with it
        }
        device.makeCurrent();
        device.driver().memFreeHost(address);
    }

    @Override
    public void close() {
        for (Long address : live.toArray(Long[]::new)) {
            free(address);
        }
    }
}
