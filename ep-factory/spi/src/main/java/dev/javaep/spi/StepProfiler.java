package dev.javaep.spi;

/**
 * Where a compiled node notes the steps it ran inside one {@code Compute} while the host profiles the session
 * (ORT's session profiling: the steps become {@code javaep:<node>} events in {@code SessionEndProfiling}'s JSON).
 * {@link KernelContext#stepProfiler()} returns one only while a profile is being taken, so a node that asks once
 * per Compute and finds null pays nothing more.
 *
 * <p>A host EP notes each step's wall time ({@link #hostStep}). A device EP queues work and returns before the
 * device ran it, so it notes a {@link DeviceTiming} the profiler reads later: when the device has passed the step
 * (checked without waiting at later Computes) or, at the latest, when the profile is collected.
 */
public interface StepProfiler {
    /**
     * A step that ran on the host.
     *
     * @param opType        the step's op ({@code Conv})
     * @param nodeName      the step's node name in the model (may be empty)
     * @param startNanos    {@link System#nanoTime()} when it started
     * @param durationNanos its wall time
     */
    void hostStep(String opType, String nodeName, long startNanos, long durationNanos);

    /**
     * A step queued on a device.
     *
     * @param queuedNanos   {@link System#nanoTime()} when the node began queueing it (the device runs it then or later)
     * @param queueingNanos the host's time to queue it
     * @param timing        its device time, read later; the profiler releases it exactly once
     */
    void deviceStep(String opType, String nodeName, long queuedNanos, long queueingNanos, DeviceTiming timing);

    /** A step's time on the device, known once the device has passed the step's end (e.g. a pair of CUDA events). */
    interface DeviceTiming {
        /** Marks {@link #deviceNanos} returns while the device has not reached the step's end yet ({@code wait} false). */
        long NOT_YET = -1;

        /**
         * The device's time between the step's start and end marks, in nanoseconds; {@link #NOT_YET} when
         * {@code wait} is false and the device has not got there. With {@code wait} true it blocks until it has.
         */
        long deviceNanos(boolean wait);

        /** Gives back what the timing holds (its events, to a pool); called once, read or not. */
        void release();
    }
}
