package dev.javaep.bridge.events;

import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * One {@code OrtExternalResourceImporterImpl::WaitSemaphore} or {@code SignalSemaphore}: queued on a stream, so
 * the duration is the queuing.
 */
@Name(ExternalSemaphoreEvent.NAME)
@Label("External Semaphore")
@Description("An app asked a Java execution provider to wait or signal an imported semaphore on a stream")
public final class ExternalSemaphoreEvent extends BridgeEvent {
    public static final String NAME = "javaep.ExternalSemaphore";
    private static final ExternalSemaphoreEvent GATE = new ExternalSemaphoreEvent();

    @Label("Operation")
    @Description("wait or signal")
    String operation;

    @Label("Type")
    @Description("The OrtExternalSemaphoreType, by name")
    String type;

    @Label("Value")
    @Description("The timeline value waited for or signalled")
    long value;

    @Label("Stream")
    @Description("The EP's stream handle (e.g. a CUstream)")
    long stream;

    /** A begun event when a recording wants it, else {@code null} (nothing allocated). */
    public static ExternalSemaphoreEvent beginIfRecorded() {
        return GATE.isEnabled() ? begun(new ExternalSemaphoreEvent()) : null;
    }

    /** Ends and commits {@code event} ({@code null} is a no-op). */
    public static void commit(ExternalSemaphoreEvent event, String executionProvider, String operation, String type,
                              long value, long stream) {
        if (endAndCheck(event)) {
            event.executionProvider = executionProvider;
            event.operation = operation;
            event.type = type;
            event.value = value;
            event.stream = stream;
            event.commit();
        }
    }
}
