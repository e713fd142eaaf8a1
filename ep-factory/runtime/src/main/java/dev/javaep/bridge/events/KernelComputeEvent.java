package dev.javaep.bridge.events;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** One {@code OrtKernelImpl::Compute}: a per-op kernel run for one node. */
@Name(KernelComputeEvent.NAME)
@Label("Kernel Compute")
@Description("ORT ran a per-op kernel of a Java execution provider for one node")
public final class KernelComputeEvent extends BridgeEvent {
    public static final String NAME = "javaep.KernelCompute";
    private static final KernelComputeEvent GATE = new KernelComputeEvent();

    @Label("Op Type")
    String opType;

    @Label("Node")
    String node;

    /** A begun event when a recording wants it, else {@code null} (nothing allocated). */
    public static KernelComputeEvent beginIfRecorded() {
        return GATE.isEnabled() ? begun(new KernelComputeEvent()) : null;
    }

    /** Ends and commits {@code event} ({@code null} is a no-op). */
    public static void commit(KernelComputeEvent event, String executionProvider, String opType, String node) {
        if (endAndCheck(event)) {
            event.executionProvider = executionProvider;
            event.opType = opType;
            event.node = node;
            event.commit();
        }
    }
}
