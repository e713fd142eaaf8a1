package dev.javaep.cuda.events;

import dev.javaep.spi.RecordedEvent;
import jdk.jfr.Category;
import jdk.jfr.DataAmount;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** One copy JavaCuda queues ({@code cuMemcpyAsync}, {@code cuMemcpyHtoDAsync}, {@code cuMemcpyDtoHAsync}). */
@Name(CudaMemcpyEvent.NAME)
@Label("CUDA Memcpy")
@Category({"javaep", "CUDA"})
@Description("JavaCuda queued a copy on a stream (ORT's CopyTensors or a Memcpy kernel); without a stream it waits for it")
public final class CudaMemcpyEvent extends RecordedEvent {
    public static final String NAME = "javaep.cuda.Memcpy";
    private static final CudaMemcpyEvent GATE = new CudaMemcpyEvent();

    /** The ways a copy goes. */
    public enum Direction { HOST_TO_DEVICE, DEVICE_TO_HOST, DEVICE_TO_DEVICE }

    @Label("Bytes")
    @DataAmount
    long bytes;

    @Label("Direction")
    String direction;

    @Label("Device")
    @Description("The CUDA device ordinal the copy was queued on")
    int device;

    @Label("Stream")
    @Description("The CUstream handle (0: none; the copy completed before the call returned)")
    long stream;

    @Label("Origin")
    @Description("CopyTensors (ORT's data transfer), MemcpyFromHost or MemcpyToHost (the copy kernels)")
    String origin;

    /** A begun event when a recording wants it, else {@code null} (nothing allocated). */
    public static CudaMemcpyEvent beginIfRecorded() {
        return GATE.isEnabled() ? begun(new CudaMemcpyEvent()) : null;
    }

    /** Ends and commits {@code event} ({@code null} is a no-op). */
    public static void commit(CudaMemcpyEvent event, long bytes, Direction direction, int device, long stream,
                              String origin) {
        if (endAndCheck(event)) {
            event.bytes = bytes;
            event.direction = direction.name();
            event.device = device;
            event.stream = stream;
            event.origin = origin;
            event.commit();
        }
    }
}
