package dev.javaep.bridge;

import dev.javaep.ort.OrtEpStruct;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.Graph;
import dev.javaep.spi.Node;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;

/** An {@code OrtEp} in front of one {@link ExecutionProvider} (one per session). */
final class EpBridge {
    private static final HandleRegistry<EpBridge> REGISTRY = new HandleRegistry<>("OrtEp");
    private static final CallbackStruct<OrtEpStruct> STRUCT = new CallbackStruct<>(OrtEpStruct.class, OrtEpStruct.SIZE,
            slot -> Upcalls.find(MethodHandles.lookup(), EpBridge.class, slot));
    private static final EnumSet<OrtEpStruct> IMPLEMENTED = EnumSet.of(OrtEpStruct.GetName, OrtEpStruct.GetCapability,
            OrtEpStruct.Compile, OrtEpStruct.ReleaseNodeComputeInfos, OrtEpStruct.IsConcurrentRunSupported,
            OrtEpStruct.Sync);

    private final ExecutionProvider provider;
    private final OrtRuntime runtime;
    private final boolean hostAccessible;
    private final Arena arena = Arena.ofShared();
    private final MemorySegment name;
    private final MemorySegment struct;

    private EpBridge(ExecutionProvider provider, OrtRuntime runtime, boolean hostAccessible) {
        this.provider = provider;
        this.runtime = runtime;
        this.hostAccessible = hostAccessible;
        this.name = arena.allocateFrom(provider.name());
        this.struct = STRUCT.allocate(arena, runtime.apiVersion(), IMPLEMENTED);
        REGISTRY.register(struct, this);
    }

    static MemorySegment create(ExecutionProvider provider, OrtRuntime runtime, boolean hostAccessible) {
        return new EpBridge(provider, runtime, hostAccessible).struct;
    }

    /** Closes the EP at {@code pointer} and frees its struct. */
    static void release(MemorySegment pointer) {
        EpBridge bridge = REGISTRY.remove(pointer);
        if (bridge == null) {
            BridgeLog.logger().warning("javaep: ReleaseEp got an unknown OrtEp pointer");
            return;
        }
        try {
            bridge.provider.close();
        } finally {
            bridge.arena.close();
        }
    }

    // ---- upcalls (behind UpcallGuard) ------------------------------------------------------------

    static MemorySegment getName(MemorySegment self) {
        return REGISTRY.get(self).name;
    }

    static MemorySegment getCapability(MemorySegment self, MemorySegment graph, MemorySegment supportInfo) {
        EpBridge bridge = REGISTRY.get(self);
        Graph view = new GraphReader(bridge.runtime.api()).read(graph);
        for (List<Node> group : bridge.provider.selectNodes(view)) {
            if (group.isEmpty()) {
                continue;
            }
            List<MemorySegment> nodes = new ArrayList<>(group.size());
            for (Node node : group) {
                nodes.add(MemorySegment.ofAddress(node.id()));
            }
            bridge.runtime.epApi().addNodesToFuse(supportInfo, nodes);
        }
        return MemorySegment.NULL;
    }

    static MemorySegment compile(MemorySegment self, MemorySegment graphs, MemorySegment fusedNodes, long count,
                                 MemorySegment computeInfosOut, MemorySegment epContextNodesOut) {
        EpBridge bridge = REGISTRY.get(self);
        long bytes = count * ValueLayout.ADDRESS.byteSize();
        MemorySegment graphArray = graphs.reinterpret(bytes);
        MemorySegment fusedArray = fusedNodes.reinterpret(bytes);
        MemorySegment out = computeInfosOut.reinterpret(bytes);
        GraphReader reader = new GraphReader(bridge.runtime.api());
        List<MemorySegment> created = new ArrayList<>();
        try {
            for (long i = 0; i < count; i++) {
                Graph subgraph = reader.read(graphArray.getAtIndex(ValueLayout.ADDRESS, i));
                Node fusedNode = reader.readNode(fusedArray.getAtIndex(ValueLayout.ADDRESS, i));
                CompiledNode compiled = bridge.provider.compile(subgraph, fusedNode);
                MemorySegment info = NodeComputeBridge.create(compiled, bridge.runtime, bridge.hostAccessible);
                created.add(info);
                out.setAtIndex(ValueLayout.ADDRESS, i, info);
            }
        } catch (RuntimeException | Error e) {
            // ORT never sees a partial result: release what this call created, then report.
            for (MemorySegment info : created) {
                NodeComputeBridge.release(info);
            }
            out.fill((byte) 0);
            throw e;
        }
        return MemorySegment.NULL;
    }

    static void releaseNodeComputeInfos(MemorySegment self, MemorySegment infos, long count) {
        MemorySegment array = infos.reinterpret(count * ValueLayout.ADDRESS.byteSize());
        for (long i = 0; i < count; i++) {
            MemorySegment info = array.getAtIndex(ValueLayout.ADDRESS, i);
            if (!info.equals(MemorySegment.NULL)) {
                NodeComputeBridge.release(info);
            }
        }
    }

    static MemorySegment isConcurrentRunSupported(MemorySegment self, MemorySegment supportedOut) {
        boolean supported = REGISTRY.get(self).provider.concurrentRunSupported();
        supportedOut.reinterpret(1).set(ValueLayout.JAVA_BOOLEAN, 0, supported);
        return MemorySegment.NULL;
    }

    static MemorySegment sync(MemorySegment self) {
        REGISTRY.get(self).provider.synchronize();
        return MemorySegment.NULL;
    }
}
