package dev.javaep.bridge;

import dev.javaep.ort.OrtNodeComputeInfoStruct;
import dev.javaep.spi.CompiledNode;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.util.EnumSet;

/** An {@code OrtNodeComputeInfo} in front of one {@link CompiledNode}. */
final class NodeComputeBridge {
    private static final HandleRegistry<NodeComputeBridge> REGISTRY = new HandleRegistry<>("OrtNodeComputeInfo");
    private static final CallbackStruct<OrtNodeComputeInfoStruct> STRUCT = new CallbackStruct<>(
            OrtNodeComputeInfoStruct.class, OrtNodeComputeInfoStruct.SIZE,
            slot -> Upcalls.find(MethodHandles.lookup(), NodeComputeBridge.class, slot));

    private final CompiledNode compiled;
    private final OrtRuntime runtime;
    private final KernelMemory memory;
    private final String description;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment struct;

    private NodeComputeBridge(CompiledNode compiled, OrtRuntime runtime, KernelMemory memory, String description) {
        this.compiled = compiled;
        this.runtime = runtime;
        this.memory = memory;
        this.description = description;
        this.struct = STRUCT.allocate(arena, runtime.apiVersion(), EnumSet.allOf(OrtNodeComputeInfoStruct.class));
        REGISTRY.register(struct, this);
    }

    /** @param description what failure messages call the compiled node, e.g. "JavaCpuExecutionProvider's compiled node 'x'" */
    static MemorySegment create(CompiledNode compiled, OrtRuntime runtime, KernelMemory memory, String description) {
        return new NodeComputeBridge(compiled, runtime, memory, description).struct;
    }

    /** Releases the compute info at {@code pointer}; unknown pointers are ignored (and logged). */
    static void release(MemorySegment pointer) {
        NodeComputeBridge bridge = REGISTRY.remove(pointer);
        if (bridge == null) {
            BridgeLog.logger().warning("javaep: ReleaseNodeComputeInfos got an unknown pointer");
            return;
        }
        try {
            bridge.compiled.close();
        } finally {
            bridge.arena.close();
        }
    }

    // ---- upcalls (behind UpcallGuard) ------------------------------------------------------------

    static MemorySegment createState(MemorySegment self, MemorySegment computeContext, MemorySegment stateOut) {
        REGISTRY.get(self);
        // The compiled node keeps no per-state data; ORT passes state back to Compute and ReleaseState.
        stateOut.reinterpret(ValueLayout.ADDRESS.byteSize()).set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        return MemorySegment.NULL;
    }

    static MemorySegment compute(MemorySegment self, MemorySegment state, MemorySegment kernelContext) {
        long start = BridgeStatistics.start();
        NodeComputeBridge bridge = REGISTRY.get(self);
        bridge.compiled.compute(new KernelContextView(bridge.runtime, kernelContext, bridge.memory, java.util.Set.of(),
                bridge.description));
        BridgeStatistics.record(BridgeStatistics.Callback.COMPUTE, start);
        return MemorySegment.NULL;
    }

    static void releaseState(MemorySegment self, MemorySegment state) {
        // Nothing: createState allocates nothing.
    }
}
