package dev.javaep.bridge;

import dev.javaep.ort.OrtEpApi;
import dev.javaep.ort.OrtEpProfilerImplStruct;
import dev.javaep.spi.EpLog;
import java.lang.foreign.Arena;
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
 * {@code OrtProfilingEvent}s, which ORT writes into the profile JSON beside its own events. StartEvent and
 * StopEvent stay NULL (optional): javaep has no device events to correlate with ORT's.
 */
final class ProfilerBridge {
    private static final HandleRegistry<ProfilerBridge> REGISTRY = new HandleRegistry<>("OrtEpProfilerImpl");
    private static final CallbackStruct<OrtEpProfilerImplStruct> STRUCT =
            new CallbackStruct<>(OrtEpProfilerImplStruct.class, MethodHandles.lookup());
    private static final EnumSet<OrtEpProfilerImplStruct> IMPLEMENTED = EnumSet.of(OrtEpProfilerImplStruct.Release,
            OrtEpProfilerImplStruct.StartProfiling, OrtEpProfilerImplStruct.EndProfiling);
    /** The prefix of every event name javaep adds to ORT's profile. */
    static final String EVENT_PREFIX = "javaep:";

    /**
     * The Computes of one EP's compiled nodes while a profiler of it is on. {@link #recording()} is one volatile
     * read, so a Run without profiling pays nothing more.
     */
    static final class Timeline {
        record Compute(String node, String nodes, int nodeCount, long startNanos, long durationNanos, long threadId) {}

        private final ConcurrentLinkedQueue<Compute> computes = new ConcurrentLinkedQueue<>();
        private volatile boolean recording;

        boolean recording() {
            return recording;
        }

        void add(Compute compute) {
            if (recording) {
                computes.add(compute);
            }
        }
    }

    private final OrtRuntime runtime;
    private final String epName;
    private final Timeline timeline;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment struct;
    /** System.nanoTime() at StartProfiling, and ORT's offset of that moment from its profiling start. */
    private long startNanos;
    private long startOffsetNanos;

    private ProfilerBridge(OrtRuntime runtime, String epName, Timeline timeline) {
        this.runtime = runtime;
        this.epName = epName;
        this.timeline = timeline;
        this.struct = STRUCT.allocate(arena, runtime.apiVersion(), IMPLEMENTED);
        REGISTRY.register(struct, this);
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
        ProfilerBridge bridge = REGISTRY.release(self);
        if (bridge != null) {
            bridge.timeline.recording = false;
            bridge.timeline.computes.clear();
            bridge.arena.close();
        }
    }

    /**
     * ORT measured {@code startOffsetNanos} just before this upcall; javaep's clock is read first thing here, so its
     * timestamps lead ORT's by the upcall's latency (microseconds on the first call, when the stub is cold).
     */
    static MemorySegment startProfiling(MemorySegment self, long startOffsetNanos) {
        long now = System.nanoTime();
        ProfilerBridge bridge = REGISTRY.get(self);
        if (startOffsetNanos == WARM_UP) {
            return MemorySegment.NULL;
        }
        synchronized (bridge) {
            bridge.timeline.computes.clear();
            bridge.startOffsetNanos = startOffsetNanos;
            bridge.startNanos = now;
            bridge.timeline.recording = true;
        }
        return MemorySegment.NULL;
    }

    /** Hands ORT one NODE event per Compute noted since StartProfiling, then stops noting. */
    static MemorySegment endProfiling(MemorySegment self, MemorySegment container) {
        ProfilerBridge bridge = REGISTRY.get(self);
        List<Timeline.Compute> computes = new ArrayList<>();
        synchronized (bridge) {
            bridge.timeline.recording = false;
            for (Timeline.Compute c; (c = bridge.timeline.computes.poll()) != null; ) {
                computes.add(c);
            }
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
                long timestampUs = (bridge.startOffsetNanos + (compute.startNanos() - bridge.startNanos)) / 1000;
                events.add(epApi.createProfilingEvent(OrtEpApi.PROFILING_EVENT_CATEGORY_NODE, pid,
                        (int) compute.threadId(), EVENT_PREFIX + compute.node(), timestampUs,
                        compute.durationNanos() / 1000, args));
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
