package dev.javaep.cuda.kernel;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.spi.Node;
import dev.javaep.spi.StepProfiler;
import java.util.ArrayDeque;

/**
 * Device times of a compiled group's steps while ORT profiles the session: a timing CUDA event recorded on the Run's
 * stream before and after each device step, their elapsed time read later by the profiler (never by the Run: it
 * queues its work and returns as always). The events come from a pool of the group's, created on the first profiled
 * Run and reused after the profiler read them; a Run that is not profiled never gets here, so it pays nothing. Host
 * steps (shape arithmetic) are noted with their wall time.
 */
final class CudaStepTimer implements AutoCloseable {
    /** A step begun: when, on the host, and its start event (0 for a host step). */
    record Mark(long startNanos, long startEvent) {}

    /**
     * How long the device spins before a gap-filled step's start event ({@link #begin}), µs:
     * longer than the host takes to queue any one step (cuDNN's legacy calls take 60–90 µs of host time).
     */
    static final long SPIN_MICROS = Long.getLong("javaep.cuda.profileSteps.spinMicros", 500);
    private final CudaDevice device;
    private final ArrayDeque<Long> pool = new ArrayDeque<>();
    private boolean closed;
    /** The spin kernel, loaded on the first gap-filled step; null before. */
    private DeviceSpin spin;

    CudaStepTimer(CudaDevice device) {
        this.device = device;
    }

    /**
     * Before a step: its start event recorded on {@code stream} (a device step). Call with the device current. With
     * {@code fillHostGaps} (the step breakdown; not ORT's profiler, whose timeline is the Run's own), the start event
     * is queued behind a kernel that keeps the device busy for {@link #SPIN_MICROS}, so that by the time the device
     * reaches the event the host has queued the whole step: the pair then measures the step's device time alone, not the device waiting
     * for the host between the step's launches (what an eager Run's pairs include, and a replayed graph does not).
     */
    Mark begin(boolean onHost, long stream, boolean fillHostGaps) {
        long startNanos = System.nanoTime();
        long startEvent = 0L;
        if (!onHost) {
            if (fillHostGaps) {
                spin(stream);
            }
            startEvent = acquire();
            device.driver().eventRecord(startEvent, stream);
        }
        return new Mark(startNanos, startEvent);
    }

    private synchronized void spin(long stream) {
        if (spin == null) {
            spin = new DeviceSpin(device.driver());
        }
        spin.spin(stream, SPIN_MICROS);
    }

    /** After the step: its end event recorded on {@code stream}, and the step noted with {@code profiler}. */
    void end(Mark mark, Node node, long stream, StepProfiler profiler) {
        long queueingNanos = System.nanoTime() - mark.startNanos();
        if (mark.startEvent() == 0L) {
            profiler.hostStep(node.opType(), node.name(), mark.startNanos(), queueingNanos);
            return;
        }
        long endEvent = acquire();
        device.driver().eventRecord(endEvent, stream);
        profiler.deviceStep(node.opType(), node.name(), mark.startNanos(), queueingNanos,
                new EventPair(mark.startEvent(), endEvent));
    }

    /** The start and end events of one step; the profiler reads them once the device passed the end. */
    private final class EventPair implements StepProfiler.DeviceTiming {
        private final long start;
        private final long end;

        EventPair(long start, long end) {
            this.start = start;
            this.end = end;
        }

        @Override
        public long deviceNanos(boolean wait) {
            CudaDriver driver = device.driver();
            if (wait) {
                driver.eventSynchronize(end);
            } else if (!driver.eventQuery(end)) {
                return NOT_YET;
            }
            return Math.round(driver.eventElapsedMillis(start, end) * 1e6);
        }

        @Override
        public void release() {
            giveBack(start);
            giveBack(end);
        }
    }

    private synchronized long acquire() {
        Long pooled = pool.poll();
        return pooled != null ? pooled : device.driver().eventCreate(CudaDriver.EVENT_DEFAULT);
    }

    private void giveBack(long event) {
        synchronized (this) {
            if (!closed) {
                pool.push(event);
                return;
            }
        }
        destroy(event);
    }

    private void destroy(long event) {
        if (!device.isLost()) { // a lost context took its events with it
            device.driver().eventDestroy(event);
        }
    }

    /** How many events wait in the pool (tests). */
    synchronized int pooled() {
        return pool.size();
    }

    /** Destroys the pooled events; those the profiler still holds are destroyed when it gives them back. */
    @Override
    public void close() {
        ArrayDeque<Long> events;
        synchronized (this) {
            closed = true;
            events = new ArrayDeque<>(pool);
            pool.clear();
        }
        events.forEach(this::destroy);
        DeviceSpin loaded;
        synchronized (this) {
            loaded = spin;
            spin = null;
        }
        if (loaded != null && !device.isLost()) {
            device.makeCurrent();
            device.driver().ctxSynchronize(); // spins may still be queued on the Runs' streams (profiling only)
            loaded.close();
        }
    }
}
