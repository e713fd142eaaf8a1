package dev.javaep.bridge.events;

import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/**
 * One {@code OrtDataTransferImpl::CopyTensors}: ORT's batch of copies (graph inputs and outputs in host memory,
 * mostly). The duration is the whole batch; a device EP's own events (e.g. {@code javaep.cuda.Memcpy}) time each copy.
 */
@Name(CopyTensorsEvent.NAME)
@Label("Copy Tensors")
@Description("ORT asked a Java execution provider's data transfer to copy tensors")
public final class CopyTensorsEvent extends BridgeEvent {
    public static final String NAME = "javaep.CopyTensors";
    private static final CopyTensorsEvent GATE = new CopyTensorsEvent();

    @Label("Copies")
    int copies;

    @Label("Bytes")
    @DataAmount
    long bytes;

    @Label("Direction")
    @Description("HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE, or MIXED when the batch holds several")
    String direction;

    @Label("Device")
    @Description("The device memory of the first copy (its device end, or its source when both are devices)")
    String device;

    @Label("Stream")
    @Description("The first copy's stream handle (the EP's own, e.g. a CUstream); 0 for a copy without a stream")
    long stream;

    /** A begun event when a recording wants it, else {@code null} (nothing allocated). */
    public static CopyTensorsEvent beginIfRecorded() {
        return GATE.isEnabled() ? begun(new CopyTensorsEvent()) : null;
    }

    /**
     * Ends {@code event} and says whether a recording wants it ({@link #endAndCheck} for this type). Callers outside the
     * events package call this, not the inherited {@code endAndCheck(RecordedEvent)}: passing a {@code CopyTensorsEvent}
     * where a {@code RecordedEvent} is declared makes the JVM's verifier load both classes when it links the caller, and
     * on a runtime without {@code jdk.jfr} that fails the caller's class (the bridge's data transfer) whether or not a
     * recording ever starts.
     */
    public static boolean accepted(CopyTensorsEvent event) {
        return endAndCheck(event);
    }

    /** Commits an event {@link #accepted} accepted (the caller computes the batch's direction and device only then). */
    public static void commit(CopyTensorsEvent event, String executionProvider, int copies, long bytes, String direction,
                              String device, long stream) {
        event.executionProvider = executionProvider;
        event.copies = copies;
        event.bytes = bytes;
        event.direction = direction;
        event.device = device;
        event.stream = stream;
        event.commit();
    }
}
