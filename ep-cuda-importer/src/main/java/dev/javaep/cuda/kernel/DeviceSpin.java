package dev.javaep.cuda.kernel;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.kernel.ptx.PtxModule;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * A one-thread kernel that keeps the device busy for a given time, queued before a timed region's start event: while
 * the device spins, the host queues the region's launches, so the event pair times the launches' device time rather
 * than the device waiting for the host between them. That matters wherever one launch costs more host time than
 * device time: cuDNN's legacy calls take 60–90 µs on the host, and a small convolution runs in 10–30 µs on an H100.
 * Loaded into the current context when made, unloaded by {@link #close}; used only while timing (cuDNN's algorithm
 * choice, the step breakdown), never on a Run's path.
 */
public final class DeviceSpin implements AutoCloseable {
    /** {@code javaep_spin_ns(u64 nanos)}: spins on {@code %globaltimer} until that many nanoseconds have passed. */
    private static final String PTX = ".version " + PtxModule.PTX_ISA + "\n.target " + PtxModule.TARGET + "\n" + """
            .address_size 64
            .visible .entry javaep_spin_ns(.param .u64 nanos)
            {
                .reg .u64 %rd<5>;
                .reg .pred %p1;
                ld.param.u64 %rd1, [nanos];
                mov.u64 %rd2, %globaltimer;
            SPIN:
                mov.u64 %rd3, %globaltimer;
                sub.u64 %rd4, %rd3, %rd2;
                setp.lt.u64 %p1, %rd4, %rd1;
                @%p1 bra SPIN;
                ret;
            }
            """;

    private final CudaDriver driver;
    private final long module;
    private final long function;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment nanos = arena.allocate(ValueLayout.JAVA_LONG);
    private final MemorySegment params = arena.allocate(ValueLayout.ADDRESS);

    /** Loads the kernel into the calling thread's current context. */
    public DeviceSpin(CudaDriver driver) {
        this.driver = driver;
        this.module = driver.moduleLoadData(PTX);
        try {
            this.function = driver.moduleGetFunction(module, "javaep_spin_ns");
        } catch (RuntimeException | Error e) {
            driver.moduleUnload(module);
            arena.close();
            throw e;
        }
        params.set(ValueLayout.ADDRESS, 0, nanos);
    }

    /** Queues {@code micros} of spinning on {@code stream}. */
    public synchronized void spin(long stream, long micros) {
        nanos.set(ValueLayout.JAVA_LONG, 0, micros * 1000); // the driver copies the argument during the launch
        driver.launchKernel(function, 1, 1, 1, 1, 1, 1, 0, stream, params);
    }

    /**
     * Unloads the module. The caller first waits for every spin it queued (its stream synchronised, or the context):
     * a spin must not outlive its module. Not done here, because a spin's stream may be gone by now (a Run's stream
     * that ORT released), and synchronising a destroyed stream is undefined.
     */
    @Override
    public synchronized void close() {
        try {
            driver.moduleUnload(module);
        } finally {
            arena.close();
        }
    }
}
