package dev.javaep.cuda.events;

import dev.javaep.spi.RecordedEvent;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;

/** One {@code cuLaunchKernel} of a JavaCuda kernel. */
@Name(CudaKernelLaunchEvent.NAME)
@Label("CUDA Kernel Launch")
@Category({"javaep", "CUDA"})
@Description("JavaCuda queued one of its PTX kernels on a stream; the duration is the launch call, not the kernel")
public final class CudaKernelLaunchEvent extends RecordedEvent {
    public static final String NAME = "javaep.cuda.KernelLaunch";
    private static final CudaKernelLaunchEvent GATE = new CudaKernelLaunchEvent();

    @Label("Kernel")
    @Description("The PTX entry point")
    String kernel;

    @Label("Grid X")
    int gridX;
    @Label("Grid Y")
    int gridY;
    @Label("Grid Z")
    int gridZ;
    @Label("Block X")
    int blockX;
    @Label("Block Y")
    int blockY;
    @Label("Block Z")
    int blockZ;

    @Label("Stream")
    @Description("The CUstream handle (0: the legacy default stream)")
    long stream;

    /** A begun event when a recording wants it, else {@code null} (nothing allocated). */
    public static CudaKernelLaunchEvent beginIfRecorded() {
        return GATE.isEnabled() ? begun(new CudaKernelLaunchEvent()) : null;
    }

    /** Ends and commits {@code event} ({@code null} is a no-op). */
    public static void commit(CudaKernelLaunchEvent event, String kernel, int gridX, int gridY, int gridZ,
                              int blockX, int blockY, int blockZ, long stream) {
        if (endAndCheck(event)) {
            event.kernel = kernel;
            event.gridX = gridX;
            event.gridY = gridY;
            event.gridZ = gridZ;
            event.blockX = blockX;
            event.blockY = blockY;
            event.blockZ = blockZ;
            event.stream = stream;
            event.commit();
        }
    }
}
