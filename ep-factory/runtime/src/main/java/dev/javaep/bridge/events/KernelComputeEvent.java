package dev.javaep.bridge.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** One {@code OrtKernelImpl::Compute}: a per-op kernel run for one node. */
@Name(KernelComputeEvent.NAME)
@Label("Kernel Compute")
@Category("javaep")
@Description("ORT ran a per-op kernel of a Java execution provider for one node")
@StackTrace(false)
public final class KernelComputeEvent extends Event {
    public static final String NAME = "javaep.KernelCompute";
    private static final KernelComputeEvent GATE = new KernelComputeEvent();

    @Label("Execution Provider")
    String executionProvider;

    @Label("Op Type")
    String opType;

    @Label("Node")
    String node;

    /** A begun event when a recording wants it, else {@code null} (nothing allocated). */
    public static KernelComputeEvent beginIfRecorded() {
        if (!GATE.isEnabled()) {
            return null;
        }
        KernelComputeEvent event = new KernelComputeEvent();
        event.begin();
        return event;
    }

    /** Ends and commits {@code event} ({@code null} is a no-op). */
    public static void commit(KernelComputeEvent event, String executionProvider, String opType, String node) {
        if (event == null) {
            return;
        }
        event.end();
        if (event.shouldCommit()) {
            event.executionProvider = executionProvider;
            event.opType = opType;
            event.node = node;
            event.commit();
        }
    }
}
