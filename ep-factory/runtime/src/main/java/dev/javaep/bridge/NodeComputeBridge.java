package dev.javaep.bridge;

import dev.javaep.bridge.events.CompiledNodeComputeEvent;
import dev.javaep.ort.OrtNodeComputeInfoStruct;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.FlightRecorder;
import dev.javaep.spi.Node;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.util.List;
import java.util.stream.Collectors;

/** An {@code OrtNodeComputeInfo} in front of one {@link CompiledNode}. */
final class NodeComputeBridge extends StructBridge {
    private static final CallbackStruct<OrtNodeComputeInfoStruct, NodeComputeBridge> STRUCT =
            new CallbackStruct<>(OrtNodeComputeInfoStruct.class, MethodHandles.lookup());

    private final CompiledNode compiled;
    private final String description;
    /** What the Compute event names: fixed at compile time, so a recording costs no string building per Run. */
    private final String epName;
    private final String nodeName;
    private final int nodeCount;
    private final String nodes;
    private final ProfilerBridge.Timeline timeline;
    /** Each thread's view of its Compute calls' kernel context: its scratch and what it saw last Run (no allocation per Run). */
    private final ThreadLocal<KernelContextView> views;

    private NodeComputeBridge(CompiledNode compiled, OrtRuntime runtime, KernelMemory memory, String epName,
                              String nodeName, List<Node> group, ProfilerBridge.Timeline timeline) {
        super(STRUCT, runtime);
        this.compiled = compiled;
        this.epName = epName;
        this.nodeName = nodeName;
        this.nodeCount = group.size();
        this.timeline = timeline;
        this.nodes = group.stream().map(node -> node.opType() + ":" + node.name()).collect(Collectors.joining(","));
        this.description = epName + "'s compiled node '" + nodeName + "' (" + nodeCount + " nodes)";
        this.views = ThreadLocal.withInitial(() -> new KernelContextView(runtime, memory, java.util.Set.of(), description));
        STRUCT.register(this);
    }

    /**
     * @param nodeName ORT's name of the fused node
     * @param group    the group's nodes in the order they run
     * @param timeline the EP's notes for ORT's profiler ({@link ProfilerBridge})
     */
    static MemorySegment create(CompiledNode compiled, OrtRuntime runtime, KernelMemory memory, String epName,
                                String nodeName, List<Node> group, ProfilerBridge.Timeline timeline) {
        return new NodeComputeBridge(compiled, runtime, memory, epName, nodeName, group, timeline).struct;
    }

    /** Releases the compute info at {@code pointer}; unknown pointers are ignored (and logged). */
    static void release(MemorySegment pointer) {
        STRUCT.releaseAndClose(pointer);
    }

    @Override
    void onRelease() {
        compiled.close();
    }

    // ---- upcalls (behind UpcallGuard) ------------------------------------------------------------

    static MemorySegment createState(MemorySegment self, MemorySegment computeContext, MemorySegment stateOut) {
        STRUCT.get(self);
        // The compiled node keeps no per-state data; ORT passes state back to Compute and ReleaseState.
        stateOut.reinterpret(ValueLayout.ADDRESS.byteSize()).set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        return MemorySegment.NULL;
    }

    /** Takes its pointers as long addresses ({@link UpcallGuard#stub}): this runs every Run, and allocates nothing. */
    static long compute(long self, long state, long kernelContext) {
        long start = BridgeStatistics.start();
        long allocationStart = BridgeStatistics.startAllocation();
        CompiledNodeComputeEvent event = FlightRecorder.AVAILABLE ? CompiledNodeComputeEvent.beginIfRecorded() : null;
        NodeComputeBridge bridge = STRUCT.get(self);
        long profiledFrom = bridge.timeline.recording() ? System.nanoTime() : 0L;
        bridge.compiled.compute(bridge.views.get().bind(kernelContext,
                profiledFrom != 0L ? bridge.timeline.forCompute(bridge.nodeName) : null));
        if (profiledFrom != 0L) {
            bridge.timeline.add(new ProfilerBridge.Timeline.Compute(bridge.nodeName, bridge.nodes, bridge.nodeCount,
                    profiledFrom, System.nanoTime() - profiledFrom, Thread.currentThread().threadId()));
            bridge.timeline.resolveFinished();
        }
        if (event != null) {
            CompiledNodeComputeEvent.commit(event, bridge.epName, bridge.nodeName, bridge.nodeCount, bridge.nodes);
        }
        BridgeStatistics.record(BridgeStatistics.Callback.COMPUTE, start, allocationStart);
        return 0L; // NULL: no status
    }

    static void releaseState(MemorySegment self, MemorySegment state) {
        // Nothing: createState allocates nothing.
    }
}
