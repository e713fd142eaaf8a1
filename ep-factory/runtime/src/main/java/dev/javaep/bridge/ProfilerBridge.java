package dev.javaep.bridge;

import dev.javaep.ort.OrtEpApi;
import dev.javaep.ort.OrtEpProfilerImplStruct;
import dev.javaep.spi.EpLog;
import dev.javaep.spi.StepProfiler;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.SequencedMap;
import java.util.concurrent.ConcurrentLinkedQueue;

/**
 * An {@code OrtEpProfilerImpl} (API 25) for one EP: while ORT profiles a session, every Compute of the EP's
 * compiled nodes is noted in the EP's {@link Timeline}; at {@code EndProfiling} the notes become
 * {@code OrtProfilingEvent}s, which ORT writes into the profile JSON beside its own events. Each Compute may note
 * the steps it ran ({@link StepProfiler}, through {@link KernelContextView#stepProfiler()}): host steps with their
 * wall time, device steps with a device time the device EP measures (CUDA events around the step on JavaCuda), read
 * without stalling a Run (after later Computes if the device got there, else at EndProfiling). StartEvent and
 * StopEvent stay NULL (optional): javaep's events need no correlation with ORT's.
 */
final class ProfilerBridge extends StructBridge {
    private static final EnumSet<OrtEpProfilerImplStruct> IMPLEMENTED = EnumSet.of(OrtEpProfilerImplStruct.Release,
            OrtEpProfilerImplStruct.StartProfiling, OrtEpProfilerImplStruct.EndProfiling);
    private static final CallbackStruct<OrtEpProfilerImplStruct, ProfilerBridge> STRUCT =
            new CallbackStruct<>(OrtEpProfilerImplStruct.class, MethodHandles.lookup(), IMPLEMENTED);
    /** The prefix of every event name javaep adds to ORT's profile. */
    static final String EVENT_PREFIX = "javaep:";

    /**
     * The Computes of one EP's compiled nodes while a profiler of it is on, and the steps each ran inside (noted
     * by the compiled node through {@link StepProfiler}). {@link #recording()} is one volatile read, so a Run
     * without profiling pays nothing more.
     */
    static final class Timeline {
        record Compute(String node, String nodes, int nodeCount, long startNanos, long durationNanos, long threadId) {}

        /**
         * One step inside a Compute. A device step's time arrives later: {@link #deviceNanos} stays
         * {@link StepProfiler.DeviceTiming#NOT_YET} until the timing was read, then the timing is released.
         */
        static final class Step {
            final String group;
            final String opType;
            final String node;
            final long startNanos;
            /** The wall time (host step) or the time to queue it (device step). */
            final long hostNanos;
            final long threadId;
            private final StepProfiler.DeviceTiming timing;
            private long deviceNanos = StepProfiler.DeviceTiming.NOT_YET;
            private boolean released;

            Step(String group, String opType, String node, long startNanos, long hostNanos, long threadId,
                 StepProfiler.DeviceTiming timing) {
                this.group = group;
                this.opType = opType;
                this.node = node;
                this.startNanos = startNanos;
                this.hostNanos = hostNanos;
                this.threadId = threadId;
                this.timing = timing;
                this.released = timing == null;
            }

            boolean onDevice() {
                return timing != null;
            }

            /** Reads the device time if the device got there (or waits for it); true once it is known. Under the timeline's lock. */
            boolean resolve(boolean wait) {
                if (released) {
                    return true;
                }
                long nanos = timing.deviceNanos(wait);
                if (nanos == StepProfiler.DeviceTiming.NOT_YET) {
                    return false;
                }
                deviceNanos = nanos;
                release();
                return true;
            }

            /** Under the timeline's lock. */
            void release() {
                if (!released) {
                    released = true;
                    timing.release();
                }
            }

            long deviceNanos() {
                return deviceNanos;
            }
        }

        private final ConcurrentLinkedQueue<Compute> computes = new ConcurrentLinkedQueue<>();
        private final ConcurrentLinkedQueue<Step> steps = new ConcurrentLinkedQueue<>();
        /** Device steps whose time is not read yet, oldest first. */
        private final ConcurrentLinkedQueue<Step> unresolved = new ConcurrentLinkedQueue<>();
        private volatile boolean recording;

        boolean recording() {
            return recording;
        }

        void add(Compute compute) {
            if (recording) {
                computes.add(compute);
            }
        }

        /** Where one Compute of {@code group} (ORT's fused node) notes its steps; ask only while {@link #recording()}. */
        StepProfiler forCompute(String group) {
            long threadId = Thread.currentThread().threadId();
            return new StepProfiler() {
                @Override
                public void hostStep(String opType, String nodeName, long startNanos, long durationNanos) {
                    if (recording) {
                        steps.add(new Step(group, opType, nodeName, startNanos, durationNanos, threadId, null));
                    }
                }

                @Override
                public void deviceStep(String opType, String nodeName, long queuedNanos, long queueingNanos,
                                       DeviceTiming timing) {
                    Step step = new Step(group, opType, nodeName, queuedNanos, queueingNanos, threadId, timing);
                    synchronized (Timeline.this) {
                        if (recording) {
                            steps.add(step);
                            unresolved.add(step);
                        } else {
                            step.release();
                        }
                    }
                }
            };
        }

        /**
         * Reads the device times the device has got to, oldest first, without waiting: called after each profiled
         * Compute, so the events a long profile holds go back to their pool as the Runs go on.
         */
        synchronized void resolveFinished() {
            for (Step step; (step = unresolved.peek()) != null && step.resolve(false); ) {
                unresolved.poll();
            }
        }

        /** Every step noted since the last call; device times waited for (a timing that fails is dropped with a warning). */
        synchronized List<Step> drainSteps() {
            List<Step> drained = new ArrayList<>();
            for (Step step; (step = steps.poll()) != null; ) {
                try {
                    step.resolve(true);
                } catch (RuntimeException e) {
                    EpLog.warning("javaep: the device time of " + step.opType + " '" + step.node + "' in '" + step.group
                            + "' could not be read: " + e);
                    step.release();
                }
                drained.add(step);
            }
            unresolved.clear();
            return drained;
        }

        /** Forgets every note, giving back what device steps hold. */
        synchronized void clear() {
            computes.clear();
            for (Step step; (step = steps.poll()) != null; ) {
                step.release();
            }
            unresolved.clear();
        }
    }

    private final String epName;
    private final Timeline timeline;
    /** System.nanoTime() at StartProfiling, and ORT's offset of that moment from its profiling start. */
    private long startNanos;
    private long startOffsetNanos;

    private ProfilerBridge(OrtRuntime runtime, String epName, Timeline timeline) {
        super(STRUCT, runtime);
        this.epName = epName;
        this.timeline = timeline;
        STRUCT.register(this);
    }

    static MemorySegment create(OrtRuntime runtime, String epName, Timeline timeline) {
        ProfilerBridge bridge = new ProfilerBridge(runtime, epName, timeline);
        bridge.warmStartProfiling();
        return bridge.struct;
    }

    /** A C call of the profiler's own StartProfiling stub, as ORT makes it; built once. */
    private static final class StartProfilingCall {
        @SuppressWarnings("restricted") // the address is our own upcall stub
        static final MethodHandle HANDLE = Linker.nativeLinker().downcallHandle(
                OrtEpProfilerImplStruct.StartProfiling.descriptor());
    }

    /**
     * ORT measures the offset it passes to StartProfiling just before calling it, so the call's latency shifts every
     * javaep timestamp. A cold upcall stub takes about 0.1 ms on its first call: call it once here (with
     * {@link #WARM_UP}, which it ignores), so ORT's call finds it warm.
     */
    private void warmStartProfiling() {
        MemorySegment stub = struct.get(ValueLayout.ADDRESS, OrtEpProfilerImplStruct.StartProfiling.byteOffset());
        try {
            MemorySegment status = (MemorySegment) StartProfilingCall.HANDLE.invokeExact(stub, struct, WARM_UP);
            if (!status.equals(MemorySegment.NULL)) {
                EpLog.warning("javaep: warming the profiler's StartProfiling returned a status");
            }
        } catch (Throwable t) {
            EpLog.warning("javaep: warming the profiler's StartProfiling failed: " + t);
        }
    }

    /** The offset of javaep's warm-up call; ORT's offsets are elapsed times, never negative. */
    private static final long WARM_UP = -1;

    // ---- upcalls (behind UpcallGuard) ------------------------------------------------------------

    static void release(MemorySegment self) {
        STRUCT.releaseAndClose(self);
    }

    @Override
    void onRelease() {
        timeline.recording = false;
        timeline.clear();
    }

    /**
     * ORT measured {@code startOffsetNanos} just before this upcall; javaep's clock is read first thing here, so its
     * timestamps lead ORT's by the upcall's latency (microseconds on the first call, when the stub is cold).
     */
    static MemorySegment startProfiling(MemorySegment self, long startOffsetNanos) {
        long now = System.nanoTime();
        ProfilerBridge bridge = STRUCT.get(self);
        if (startOffsetNanos == WARM_UP) {
            return MemorySegment.NULL;
        }
        synchronized (bridge) {
            bridge.timeline.clear();
            bridge.startOffsetNanos = startOffsetNanos;
            bridge.startNanos = now;
            bridge.timeline.recording = true;
        }
        return MemorySegment.NULL;
    }

    /** A System.nanoTime() as microseconds on ORT's profiling clock. */
    private long ortMicros(long nanos) {
        return (startOffsetNanos + (nanos - startNanos)) / 1000;
    }

    private static String micros(long nanos) {
        return String.format(java.util.Locale.ROOT, "%.3f", nanos / 1000.0);
    }

    /**
     * Hands ORT one NODE event per Compute and one per step the compiled nodes noted inside it ({@code javaep:<node>},
     * with the step's op; a device step's duration is its device time, {@code device_us}), noted since
     * StartProfiling, then stops noting.
     */
    static MemorySegment endProfiling(MemorySegment self, MemorySegment container) {
        ProfilerBridge bridge = STRUCT.get(self);
        List<Timeline.Compute> computes = new ArrayList<>();
        List<Timeline.Step> steps;
        synchronized (bridge) {
            bridge.timeline.recording = false;
            for (Timeline.Compute c; (c = bridge.timeline.computes.poll()) != null; ) {
                computes.add(c);
            }
            steps = bridge.timeline.drainSteps();
        }
        OrtEpApi epApi = bridge.runtime.epApi();
        int pid = (int) ProcessHandle.current().pid();
        List<MemorySegment> events = new ArrayList<>(computes.size());
        try {
            for (Timeline.Compute compute : computes) {
                SequencedMap<String, String> args = new LinkedHashMap<>();
                args.put("ep", bridge.epName);
                args.put("node_count", Integer.toString(compute.nodeCount()));
                args.put("nodes", compute.nodes());
                events.add(epApi.createProfilingEvent(OrtEpApi.PROFILING_EVENT_CATEGORY_NODE, pid,
                        (int) compute.threadId(), EVENT_PREFIX + compute.node(), bridge.ortMicros(compute.startNanos()),
                        compute.durationNanos() / 1000, args));
            }
            for (Timeline.Step step : steps) {
                SequencedMap<String, String> args = new LinkedHashMap<>();
                args.put("ep", bridge.epName);
                args.put("group", step.group);
                args.put("op", step.opType);
                long durationNanos = step.hostNanos;
                if (step.onDevice()) {
                    if (step.deviceNanos() < 0) {
                        continue; // its time could not be read (warned above)
                    }
                    durationNanos = step.deviceNanos();
                    args.put("device_us", micros(step.deviceNanos()));
                    args.put("queue_us", micros(step.hostNanos));
                } else {
                    args.put("host_us", micros(step.hostNanos));
                }
                String name = EVENT_PREFIX + (step.node.isEmpty() ? step.opType : step.node);
                events.add(epApi.createProfilingEvent(OrtEpApi.PROFILING_EVENT_CATEGORY_NODE, pid, (int) step.threadId,
                        name, bridge.ortMicros(step.startNanos), durationNanos / 1000, args));
            }
            if (!events.isEmpty()) {
                epApi.addProfilingEvents(container, events);
            }
        } finally {
            for (MemorySegment event : events) {
                epApi.releaseProfilingEvent(event);
            }
        }
        return MemorySegment.NULL;
    }
}
