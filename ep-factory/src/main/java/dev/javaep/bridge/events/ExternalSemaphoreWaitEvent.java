package dev.javaep.bridge.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** One {@code OrtExternalResourceImporterImpl::WaitSemaphore}: queued on a stream, so the duration is the queuing. */
@Name(ExternalSemaphoreWaitEvent.NAME)
@Label("External Semaphore Wait")
@Category("javaep")
@Description("An app asked a Java execution provider to wait an imported semaphore on a stream")
@StackTrace(false)
public final class ExternalSemaphoreWaitEvent extends Event {
    public static final String NAME = "javaep.ExternalSemaphoreWait";
    private static final ExternalSemaphoreWaitEvent GATE = new ExternalSemaphoreWaitEvent();

    @Label("Execution Provider")
    String executionProvider;

    @Label("Type")
    @Description("The OrtExternalSemaphoreType, by name")
    String type;

    @Label("Value")
    @Description("The timeline value to wait")
    long value;

    @Label("Stream")
    @Description("The EP's stream handle (e.g. a CUstream)")
    long stream;

    /** A begun event when a recording wants it, else {@code null} (nothing allocated). */
    public static ExternalSemaphoreWaitEvent beginIfRecorded() {
        if (!GATE.isEnabled()) {
            return null;
        }
        ExternalSemaphoreWaitEvent event = new ExternalSemaphoreWaitEvent();
        event.begin();
        return event;
    }

    /** Ends and commits {@code event} ({@code null} is a no-op). */
    public static void commit(ExternalSemaphoreWaitEvent event, String executionProvider, String type, long value,
                              long stream) {
        if (event == null) {
            return;
        }
        event.end();
        if (event.shouldCommit()) {
            event.executionProvider = executionProvider;
            event.type = type;
            event.value = value;
            event.stream = stream;
            event.commit();
        }
    }
}
