package dev.javaep.bridge;

import dev.javaep.ort.OrtEpStruct;
import dev.javaep.ort.OrtFeature;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.DeclineCode;
import dev.javaep.spi.EpLog;
import dev.javaep.spi.EpLogger;
import dev.javaep.spi.GraphPartitioner;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.Graph;
import dev.javaep.spi.KernelDefinition;
import dev.javaep.spi.Node;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.lang.invoke.MethodHandles;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/** An {@code OrtEp} in front of one {@link ExecutionProvider} (one per session). */
final class EpBridge extends StructBridge {
    private static final EnumSet<OrtEpStruct> IMPLEMENTED = EnumSet.of(OrtEpStruct.GetName, OrtEpStruct.GetCapability,
            OrtEpStruct.Compile, OrtEpStruct.ReleaseNodeComputeInfos, OrtEpStruct.IsConcurrentRunSupported,
            OrtEpStruct.Sync, OrtEpStruct.GetKernelRegistry, OrtEpStruct.CreateProfiler);
    private static final CallbackStruct<OrtEpStruct, EpBridge> STRUCT =
            new CallbackStruct<>(OrtEpStruct.class, MethodHandles.lookup(), withGraphCapture(IMPLEMENTED));

    /** Every EP's struct has stubs for the graph-capture members; {@link GraphCaptureBridge#attach} clears unused ones. */
    private static EnumSet<OrtEpStruct> withGraphCapture(EnumSet<OrtEpStruct> implemented) {
        EnumSet<OrtEpStruct> all = EnumSet.copyOf(implemented);
        all.addAll(GraphCaptureBridge.SLOTS);
        return all;
    }

    /**
     * Diagnostic, read per GetCapability: {@code -Djavaep.singleNodeGroups=true} compiles every claimed node
     * alone (what javaep did before it partitioned), for benchmarks that weigh grouping and for ruling
     * grouping out when a model misbehaves.
     */
    static final String SINGLE_NODE_GROUPS_PROPERTY = "javaep.singleNodeGroups";

    private final ExecutionProvider provider;
    private final KernelMemory memory;
    /** The Computes of this EP's compiled nodes while ORT profiles the session (CreateProfiler). */
    private final ProfilerBridge.Timeline timeline = new ProfilerBridge.Timeline();
    private final MemorySegment name;
    /** The EP's per-op kernels, built on the first GetKernelRegistry call; null before, or when it has none. */
    private KernelRegistryBridge kernelRegistry;
    private boolean kernelsRegistered;
    /** The EP's part in ORT's graph capture; null when it takes none (its members are NULL then). */
    private final GraphCaptureBridge graphCapture;

    private EpBridge(ExecutionProvider provider, OrtRuntime runtime, KernelMemory memory) {
        super(STRUCT, runtime);
        this.provider = provider;
        this.memory = memory;
        this.name = arena.allocateFrom(provider.name());
        this.graphCapture = GraphCaptureBridge.attach(provider, runtime, struct).orElse(null);
        STRUCT.register(this);
    }

    /** @param memory where the EP's kernels read and write tensors */
    static MemorySegment create(ExecutionProvider provider, OrtRuntime runtime, KernelMemory memory) {
        return new EpBridge(provider, runtime, memory).struct;
    }

    /** Closes the EP at {@code pointer} and frees its struct. */
    static void release(MemorySegment pointer) {
        STRUCT.releaseAndClose(pointer);
    }

    @Override
    void onRelease() {
        try {
            provider.close();
        } finally {
            closeKernelRegistry();
        }
    }

    private synchronized void closeKernelRegistry() {
        if (kernelRegistry != null) {
            kernelRegistry.close();
            kernelRegistry = null;
        }
    }

    // ---- upcalls (behind UpcallGuard) ------------------------------------------------------------

    static MemorySegment getName(MemorySegment self) {
        return STRUCT.get(self).name;
    }

    /**
     * Asks the EP about every node, then claims: compiled nodes in the largest groups ORT can fuse
     * ({@link GraphPartitioner}), per-op kernel nodes one by one once ORT confirms their kernel. Never
     * fails: an error reading or judging one node declines that node; an error reading the graph
     * claims nothing. Either is logged and counted in {@link CapabilityReports}.
     */
    static MemorySegment getCapability(MemorySegment self, MemorySegment graph, MemorySegment supportInfo) {
        EpBridge bridge = STRUCT.get(self);
        String epName = bridge.provider.name();
        Graph view;
        try {
            view = new GraphReader(bridge.runtime.api()).read(graph);
        } catch (RuntimeException | StackOverflowError e) {
            String failure = "cannot read the graph: " + e;
            CapabilityReports.add(new CapabilityReports.Report(epName, "?", 0, 0, 0, 0, Map.of(), List.of(failure)));
            EpLog.warning("javaep: " + epName + " claims nothing: " + failure);
            return MemorySegment.NULL;
        }
        List<String> failures = new ArrayList<>();
        for (String unread : view.unreadNodes()) {
            failures.add("unreadable node " + unread);
        }
        Map<DeclineCode, Integer> declines = new EnumMap<>(DeclineCode.class);
        Set<Node> compiled = Collections.newSetFromMap(new IdentityHashMap<>());
        List<Node> kernelNodes = new ArrayList<>();
        boolean fusesInThisGraph = bridge.canFuseIn(graph, view);
        for (Node node : view.nodes()) {
            NodeSupport support = bridge.judge(node, failures);
            if (support instanceof NodeSupport.Compiled && !fusesInThisGraph) {
                support = NodeSupport.declined(DeclineCode.RUNTIME, "ONNX Runtime before "
                        + OrtFeature.FUSED_GROUPS_IN_SUBGRAPHS.sinceRelease() + " can give fused nodes in "
                        + "subgraphs or in a second partitioning pass the same name and then fails the session "
                        + "(\"Conflicting with a registered kernel\"); upgrade ONNX Runtime to run this node on " + epName);
            }
            switch (support) {
                case NodeSupport.Compiled c -> compiled.add(node);
                case NodeSupport.Kernel k -> kernelNodes.add(node);
                case NodeSupport.Declined(DeclineCode code, String reason) -> {
                    declines.merge(code, 1, Integer::sum);
                    EpLog.verbose(epName + " leaves " + node + " to other EPs [" + code + "]: " + reason);
                }
            }
        }
        int kernelClaims = bridge.claimKernelNodes(kernelNodes, supportInfo, declines, failures);
        ClaimedGroups claimed = bridge.claimGroups(view, compiled, supportInfo, failures);
        CapabilityReports.Report report = new CapabilityReports.Report(epName, view.name(),
                view.nodes().size() + view.unreadNodes().size(), claimed.groups(), claimed.nodes(), kernelClaims,
                declines, failures);
        CapabilityReports.add(report);
        EpLog.log(failures.isEmpty() ? EpLogger.Level.INFO : EpLogger.Level.WARNING, "javaep: " + report.summary()
                + (failures.isEmpty() ? "" : ": " + String.join("; ", failures)));
        return MemorySegment.NULL;
    }

    /** Claims each per-op kernel node ORT finds a registered kernel for; returns how many. */
    private int claimKernelNodes(List<Node> kernelNodes, MemorySegment supportInfo, Map<DeclineCode, Integer> declines,
                                 List<String> failures) {
        int claims = 0;
        for (Node node : kernelNodes) {
            MemorySegment pointer = MemorySegment.ofAddress(node.id());
            try {
                if (runtime.epApi().lookUpKernel(supportInfo, pointer).equals(MemorySegment.NULL)) {
                    declines.merge(DeclineCode.NO_KERNEL, 1, Integer::sum);
                    EpLog.verbose(provider.name() + " leaves " + node + " to other EPs [" + DeclineCode.NO_KERNEL
                            + "]: no registered kernel matches its opset and types");
                    continue;
                }
                runtime.epApi().addSingleNode(supportInfo, pointer);
                claims++;
            } catch (RuntimeException e) {
                failures.add("claiming " + node + " for its per-op kernel: " + e);
            }
        }
        return claims;
    }

    private record ClaimedGroups(int groups, int nodes) {}

    /** Claims the compiled nodes in fusable groups. */
    private ClaimedGroups claimGroups(Graph view, Set<Node> compiled, MemorySegment supportInfo, List<String> failures) {
        List<List<Node>> groups;
        try {
            groups = compiled.isEmpty() ? List.of()
                    : view.unreadNodes().isEmpty() && !Boolean.getBoolean(SINGLE_NODE_GROUPS_PROPERTY)
                    ? GraphPartitioner.groups(view.nodes(), compiled::contains)
                    // An unread node's edges are unknown, so a group could reach itself through it: only
                    // single-node groups are safe then.
                    : view.nodes().stream().filter(compiled::contains).map(List::of).toList();
        } catch (RuntimeException e) {
            failures.add("partitioning: " + e);
            return new ClaimedGroups(0, 0);
        }
        int claimedGroups = 0;
        int claimedNodes = 0;
        for (List<Node> group : groups) {
            List<MemorySegment> nodes = group.stream().map(n -> MemorySegment.ofAddress(n.id())).toList();
            try {
                runtime.epApi().addNodesToFuse(supportInfo, nodes);
                claimedGroups++;
                claimedNodes += group.size();
            } catch (RuntimeException e) {
                failures.add("claiming a group of " + group.size() + " nodes from " + group.getFirst() + ": " + e);
            }
        }
        return new ClaimedGroups(claimedGroups, claimedNodes);
    }

    /**
     * Whether fused groups may be claimed in {@code graph}. ORT before 1.26 can give two fused nodes of one
     * model the same metadef name and then fails session creation ("Conflicting with a registered kernel"):
     * seen with 1.24.1 for groups in two If branches, and for a second GetCapability pass over a main graph
     * that already holds one of this EP's fused nodes (after ORT inlines a function op). 1.26.0 and later are
     * fine. So on older runtimes groups are claimed only in the main graph, on the first pass. Per-op kernel
     * claims are not fused and are unaffected.
     */
    private boolean canFuseIn(MemorySegment graph, Graph view) {
        if (runtime.offers(OrtFeature.FUSED_GROUPS_IN_SUBGRAPHS)) {
            return true;
        }
        if (view.nodes().stream().anyMatch(n -> n.assignedEp().equals(provider.name()))) {
            return false;
        }
        try {
            return runtime.api().graphParentNode(graph).equals(MemorySegment.NULL);
        } catch (RuntimeException e) {
            return false;
        }
    }

    /** The EP's answer for one node; nodes of other EPs and answers that throw are declined here. */
    private NodeSupport judge(Node node, List<String> failures) {
        if (!node.assignedEp().isEmpty() && !node.assignedEp().equals(provider.name())) {
            return NodeSupport.declined(DeclineCode.ASSIGNED_ELSEWHERE, "assigned to " + node.assignedEp());
        }
        try {
            NodeSupport support = provider.support(node);
            return support == null ? NodeSupport.declined(DeclineCode.INTERNAL_ERROR, "support() returned null") : support;
        } catch (RuntimeException | StackOverflowError e) {
            failures.add(node + ": " + e);
            return NodeSupport.declined(DeclineCode.INTERNAL_ERROR, "judging the node threw " + e);
        }
    }

    static MemorySegment compile(MemorySegment self, MemorySegment graphs, MemorySegment fusedNodes, long count,
                                 MemorySegment computeInfosOut, MemorySegment epContextNodesOut) {
        EpBridge bridge = STRUCT.get(self);
        long bytes = count * ValueLayout.ADDRESS.byteSize();
        MemorySegment graphArray = graphs.reinterpret(bytes);
        MemorySegment fusedArray = fusedNodes.reinterpret(bytes);
        MemorySegment out = computeInfosOut.reinterpret(bytes);
        GraphReader reader = new GraphReader(bridge.runtime.api());
        List<MemorySegment> created = new ArrayList<>();
        try {
            for (long i = 0; i < count; i++) {
                Graph read = reader.read(graphArray.getAtIndex(ValueLayout.ADDRESS, i));
                if (!read.unreadNodes().isEmpty()) {
                    throw new IllegalStateException("javaep: cannot read nodes of the group ORT asks to compile: " + read.unreadNodes());
                }
                Graph subgraph = new Graph(read.name(), GraphPartitioner.topologicalOrder(read.nodes()), read.inputs(),
                        read.outputs(), read.initializers(), read.opsets(), read.unreadNodes());
                Node fusedNode = reader.readNode(fusedArray.getAtIndex(ValueLayout.ADDRESS, i));
                CompiledNode compiled = bridge.provider.compile(subgraph, fusedNode);
                MemorySegment info = NodeComputeBridge.create(compiled, bridge.runtime, bridge.memory,
                        bridge.provider.name(), fusedNode.name(), subgraph.nodes(), bridge.timeline);
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

    /**
     * {@code OrtEp::GetKernelRegistry} (API 24): the EP's {@link ExecutionProvider#kernels()} as an
     * {@code OrtKernelRegistry}, asked and built once per EP; ORT copies it. An EP without kernels answers a
     * NULL registry, which ORT reads as "this EP only compiles nodes".
     */
    static MemorySegment getKernelRegistry(MemorySegment self, MemorySegment registryOut) {
        EpBridge bridge = STRUCT.get(self);
        MemorySegment out = registryOut.reinterpret(ValueLayout.ADDRESS.byteSize());
        out.set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        // CallbackStruct leaves this slot NULL below API 24; the check keeps the rule visible here too.
        if (!bridge.runtime.offers(OrtFeature.KERNEL_REGISTRY)) {
            return MemorySegment.NULL;
        }
        out.set(ValueLayout.ADDRESS, 0, bridge.registeredKernels());
        return MemorySegment.NULL;
    }

    private synchronized MemorySegment registeredKernels() {
        if (!kernelsRegistered) {
            List<KernelDefinition> kernels = provider.kernels();
            if (kernels != null && !kernels.isEmpty()) {
                kernelRegistry = KernelRegistryBridge.build(provider.name(), kernels, runtime, memory);
            }
            kernelsRegistered = true;
        }
        return kernelRegistry == null ? MemorySegment.NULL : kernelRegistry.registry();
    }

    /**
     * {@code OrtEp::CreateProfiler} (API 25): ORT asks when a session profiles; the profiler puts one event per
     * Compute of this EP's compiled nodes into ORT's profile. Below API 25 the slot stays NULL.
     */
    static MemorySegment createProfiler(MemorySegment self, MemorySegment profilerOut) {
        EpBridge bridge = STRUCT.get(self);
        MemorySegment out = profilerOut.reinterpret(ValueLayout.ADDRESS.byteSize());
        out.set(ValueLayout.ADDRESS, 0, MemorySegment.NULL);
        if (bridge.runtime.offers(OrtFeature.EP_PROFILER)) {
            out.set(ValueLayout.ADDRESS, 0, ProfilerBridge.create(bridge.runtime, bridge.provider.name(), bridge.timeline));
        }
        return MemorySegment.NULL;
    }

    static MemorySegment isConcurrentRunSupported(MemorySegment self, MemorySegment supportedOut) {
        boolean supported = STRUCT.get(self).provider.concurrentRunSupported();
        supportedOut.reinterpret(1).set(ValueLayout.JAVA_BOOLEAN, 0, supported);
        return MemorySegment.NULL;
    }

    static MemorySegment sync(MemorySegment self) {
        STRUCT.get(self).provider.synchronize();
        return MemorySegment.NULL;
    }

    // ---- ORT's graph capture (API 26; members NULL unless the EP offers it): GraphCaptureBridge ----------------

    private GraphCaptureBridge graphCapture() {
        if (graphCapture == null) {
            throw new IllegalStateException("javaep: " + provider.name() + " takes no part in graph capture");
        }
        return graphCapture;
    }

    static boolean isGraphCaptureEnabled(MemorySegment self) {
        return STRUCT.get(self).graphCapture().enabled();
    }

    static boolean isGraphCaptured(MemorySegment self, int annotationId) {
        return STRUCT.get(self).graphCapture().isCaptured(annotationId);
    }

    static MemorySegment replayGraph(MemorySegment self, int annotationId) {
        STRUCT.get(self).graphCapture().replay(annotationId);
        return MemorySegment.NULL;
    }

    static int getGraphCaptureNodeAssignmentPolicy(MemorySegment self) {
        return STRUCT.get(self).graphCapture().nodeAssignmentPolicy();
    }

    static MemorySegment releaseCapturedGraph(MemorySegment self, int annotationId) {
        STRUCT.get(self).graphCapture().release(annotationId);
        return MemorySegment.NULL;
    }

    static MemorySegment onRunStart(MemorySegment self, MemorySegment runOptions) {
        STRUCT.get(self).graphCapture().onRunStart(runOptions);
        return MemorySegment.NULL;
    }

    static MemorySegment onRunEnd(MemorySegment self, MemorySegment runOptions, boolean syncStream) {
        STRUCT.get(self).graphCapture().onRunEnd(runOptions, syncStream);
        return MemorySegment.NULL;
    }
}
