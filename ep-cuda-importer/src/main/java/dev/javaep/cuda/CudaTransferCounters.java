package dev.javaep.cuda;

import dev.javaep.spi.MemoryLocation;
import java.util.concurrent.atomic.LongAdder;

/**
 * How many copies JavaCudaExecutionProvider made, by direction, since the process started (or
 * {@link #reset()}): those of its data transfer and of its copy kernels ({@code MemcpyFromHost},
 * {@code MemcpyToHost}). How tests and benchmarks prove a path is zero-copy.
 */
public final class CudaTransferCounters {
    private static final LongAdder HOST_TO_DEVICE = new LongAdder();
    private static final LongAdder DEVICE_TO_HOST = new LongAdder();
    private static final LongAdder DEVICE_TO_DEVICE = new LongAdder();
    private static final LongAdder BYTES = new LongAdder();

    private CudaTransferCounters() {}

    /** Counts so far. */
    public record Snapshot(long hostToDevice, long deviceToHost, long deviceToDevice, long bytes) {
        public long copies() {
            return hostToDevice + deviceToHost + deviceToDevice;
        }
    }

    public static Snapshot snapshot() {
        return new Snapshot(HOST_TO_DEVICE.sum(), DEVICE_TO_HOST.sum(), DEVICE_TO_DEVICE.sum(), BYTES.sum());
    }

    public static void reset() {
        HOST_TO_DEVICE.reset();
        DEVICE_TO_HOST.reset();
        DEVICE_TO_DEVICE.reset();
        BYTES.reset();
    }

    static void count(MemoryLocation source, MemoryLocation destination, long bytes) {
        // Pinned (HOST_ACCESSIBLE) memory counts as host: a copy into it is a trip off the device.
        count(source.hostAccessible(), destination.hostAccessible(), bytes);
    }

    /** A copy the data transfer or a copy kernel ({@code MemcpyFromHost}/{@code MemcpyToHost}) made. */
    static void count(boolean fromHost, boolean toHost, long bytes) {
        if (fromHost && !toHost) {
            HOST_TO_DEVICE.increment();
        } else if (!fromHost && toHost) {
            DEVICE_TO_HOST.increment();
        } else {
            DEVICE_TO_DEVICE.increment();
        }
        BYTES.add(bytes);
    }
}
