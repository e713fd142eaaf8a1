package dev.javaep.bridge.events;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Event;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/** One {@code OrtExternalResourceImporterImpl::SignalSemaphore}: queued on a stream, so the duration is the queuing. */
@Name(ExternalSemaphoreSignalEvent.NAME)
@Label("External Semaphore Signal")
@Category("javaep")
@Description("An app asked a Java execution provider to signal an imported semaphore on a stream")
@StackTrace(false)
public final class ExternalSemaphoreSignalEvent extends Event {
    public static final String NAME = "javaep.ExternalSemaphoreSignal";
    private static final ExternalSemaphoreSignalEvent GATE = new ExternalSemaphoreSignalEvent();

    @Label("Execution Provider")
    String executionProvider;

    @Label("Type")
    @Description("The OrtExternalSemaphoreType, by name")
    String type;

    @Label("Value")
    @Description("The timeline value to signal")
    long value;

    @Label("Stream")
    @Description("The EP's stream handle (e.g. a CUstream)")
    long stream;

    /** A begun event when a recording wants it, else {@code null} (nothing allocated). */
    public static ExternalSemaphoreSignalEvent beginIfRecorded() {
        if (!GATE.isEnabled()) {
            return null;
        }
        ExternalSemaphoreSignalEvent event = new ExternalSemaphoreSignalEvent();
        event.begin();
        return event;
    }

    /** Ends and commits {@code event} ({@code null} is a no-op). */
    public static void commit(ExternalSemaphoreSignalEvent event, String executionProvider, String type, long value,
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
