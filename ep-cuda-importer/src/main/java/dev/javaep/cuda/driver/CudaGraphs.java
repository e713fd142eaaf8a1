package dev.javaep.cuda.driver;

import java.util.Optional;

/**
 * CUDA graphs through the driver API: stream capture ({@code cuStreamBeginCapture_v2}/{@code cuStreamEndCapture}),
 * {@code cuGraphInstantiateWithFlags}, {@code cuGraphLaunch} and the two destroys. Only compiled groups that replay
 * their launches use them, and a driver older than CUDA 11.4 (no {@code cuGraphInstantiateWithFlags}) simply has
 * none: {@link #of} is empty there and groups launch eagerly.
 *
 * <p>Every call goes through {@link CudaDriver}, which binds the functions ({@link CudaFunction}) and checks their
 * results: an error throws {@link CudaException}, and a sticky one (a kernel of the graph faulted) marks the context
 * lost, as any other driver call does.
 */
public final class CudaGraphs {
    /** {@code CU_STREAM_CAPTURE_MODE_RELAXED}: other threads' unsafe calls (cuMemAlloc, module loads) are not refused. */
    private static final int CAPTURE_MODE_RELAXED = 2;

    private final CudaDriver driver;

    private CudaGraphs(CudaDriver driver) {
        this.driver = driver;
    }

    /** The graph functions of {@code driver}'s library, or empty when it lacks one of them (drivers before CUDA 11.4). */
    public static Optional<CudaGraphs> of(CudaDriver driver) {
        return driver.hasGraphs() ? Optional.of(new CudaGraphs(driver)) : Optional.empty();
    }

    /** Starts capturing {@code stream}: what is queued on it until {@link #endCapture} becomes a graph instead of running. */
    public void beginCapture(long stream) {
        driver.streamBeginCapture(stream, CAPTURE_MODE_RELAXED);
    }

    /** Ends the capture of {@code stream} and returns the graph; throws when the capture was invalidated (no graph is left). */
    public long endCapture(long stream) {
        return driver.streamEndCapture(stream);
    }

    /** An executable graph of {@code graph} (which may be destroyed after). */
    public long instantiate(long graph) {
        return driver.graphInstantiate(graph);
    }

    /** Queues the executable graph on {@code stream} (ordered after earlier launches of the same graph). */
    public void launch(long exec, long stream) {
        driver.graphLaunch(exec, stream);
    }

    public void destroyExec(long exec) {
        driver.graphExecDestroy(exec);
    }

    public void destroyGraph(long graph) {
        driver.graphDestroy(graph);
    }
}
