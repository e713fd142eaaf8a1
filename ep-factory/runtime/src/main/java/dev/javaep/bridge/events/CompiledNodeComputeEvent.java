package dev.javaep.bridge.events;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** One {@code OrtNodeComputeInfo::Compute}: a compiled group of ONNX nodes run in one upcall. */
@Name(CompiledNodeComputeEvent.NAME)
@Label("Compiled Node Compute")
@Description("ORT ran a compiled node of a Java execution provider: one upcall for a group of ONNX nodes")
public final class CompiledNodeComputeEvent extends BridgeEvent {
    public static final String NAME = "javaep.CompiledNodeCompute";
    private static final CompiledNodeComputeEvent GATE = new CompiledNodeComputeEvent();

    @Label("Node")
    @Description("ORT's name of the fused node")
    String node;

    @Label("Node Count")
    @Description("How many ONNX nodes the compiled group holds")
    int nodeCount;

    @Label("Nodes")
    @Description("The group's ONNX nodes in the order they run, as opType:name")
    String nodes;

    /** A begun event when a recording wants it, else {@code null} (nothing allocated). */
    public static CompiledNodeComputeEvent beginIfRecorded() {
        return GATE.isEnabled() ? begun(new CompiledNodeComputeEvent()) : null;
    }

    /** Ends and commits {@code event} (from {@link #beginIfRecorded()}; {@code null} is a no-op). */
    public static void commit(CompiledNodeComputeEvent event, String executionProvider, String node, int nodeCount,
                              String nodes) {
        if (endAndCheck(event)) {
            event.executionProvider = executionProvider;
            event.node = node;
            event.nodeCount = nodeCount;
            event.nodes = nodes;
            event.commit();
        }
    }
}
