package dev.javaep.cuda.driver;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.invoke.MethodHandle;
import java.util.Optional;

/**
 * CUDA graphs through the driver API: stream capture ({@code cuStreamBeginCapture_v2}/{@code cuStreamEndCapture}),
 * {@code cuGraphInstantiateWithFlags}, {@code cuGraphLaunch} and the two destroys, bound in the library {@link
 * CudaDriver} loaded (FFM downcalls; handles and pointers as {@code long}s, as there). Separate from {@link CudaDriver}
 * because only compiled groups that replay their launches use it, and a driver older than CUDA 11.4 (no
 * {@code cuGraphInstantiateWithFlags}) simply has none: {@link #of} is empty there and groups launch eagerly.
 *
 * <p>Errors throw {@link CudaException}; a sticky error is still recorded by the next {@link CudaDriver} call that
 * meets it (every Run synchronises through one).
 */
public final class CudaGraphs {
    /** {@code CU_STREAM_CAPTURE_MODE_RELAXED}: other threads' unsafe calls (cuMemAlloc, module loads) are not refused. */
    private static final int CAPTURE_MODE_RELAXED = 2;
    private static final Linker LINKER = Linker.nativeLinker();
    private static final ThreadLocal<MemorySegment> OUT = ThreadLocal.withInitial(() -> Arena.ofAuto().allocate(JAVA_LONG));

    private final CudaDriver driver;
    private final MethodHandle beginCapture;
    private final MethodHandle endCapture;
    private final MethodHandle instantiate;
    private final MethodHandle launch;
    private final MethodHandle destroyExec;
    private final MethodHandle destroyGraph;

    private CudaGraphs(CudaDriver driver, MethodHandle[] handles) {
        this.driver = driver;
        this.beginCapture = handles[0];
        this.endCapture = handles[1];
        this.instantiate = handles[2];
        this.launch = handles[3];
        this.destroyExec = handles[4];
        this.destroyGraph = handles[5];
    }

    private static final String[] SYMBOLS = {"cuStreamBeginCapture_v2", "cuStreamEndCapture", "cuGraphInstantiateWithFlags",
            "cuGraphLaunch", "cuGraphExecDestroy", "cuGraphDestroy"};
    private static final FunctionDescriptor[] SIGNATURES = {
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_INT), // (CUstream, CUstreamCaptureMode)
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG), // (CUstream, CUgraph *)
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG, JAVA_LONG), // (CUgraphExec *, CUgraph, unsigned long long flags)
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG, JAVA_LONG), // (CUgraphExec, CUstream)
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG), // (CUgraphExec)
            FunctionDescriptor.of(JAVA_INT, JAVA_LONG)}; // (CUgraph)

    /** The graph functions of {@code driver}'s library, or empty when it lacks one of them (drivers before CUDA 11.4). */
    public static Optional<CudaGraphs> of(CudaDriver driver) {
        MethodHandle[] handles = new MethodHandle[SYMBOLS.length];
        for (int i = 0; i < SYMBOLS.length; i++) {
            Optional<MemorySegment> address = driver.library().lookup().find(SYMBOLS[i]);
            if (address.isEmpty()) {
                return Optional.empty();
            }
            handles[i] = LINKER.downcallHandle(address.get(), SIGNATURES[i]);
        }
        return Optional.of(new CudaGraphs(driver, handles));
    }

    /** Starts capturing {@code stream}: what is queued on it until {@link #endCapture} becomes a graph instead of running. */
    public void beginCapture(long stream) {
        int r;
        try {
            r = (int) beginCapture.invokeExact(stream, CAPTURE_MODE_RELAXED);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(0, r);
    }

    /** Ends the capture of {@code stream} and returns the graph; throws when the capture was invalidated (no graph is left). */
    public long endCapture(long stream) {
        MemorySegment out = OUT.get();
        out.set(JAVA_LONG, 0, 0L);
        int r = invoke(endCapture, stream, out.address());
        long graph = out.get(JAVA_LONG, 0);
        if (r != 0 && graph != 0) {
            destroyGraph(graph);
        }
        check(1, r);
        return graph;
    }

    /** An executable graph of {@code graph} (which may be destroyed after). */
    public long instantiate(long graph) {
        MemorySegment out = OUT.get();
        out.set(JAVA_LONG, 0, 0L);
        int r;
        try {
            r = (int) instantiate.invokeExact(out.address(), graph, 0L);
        } catch (Throwable t) {
            throw rethrow(t);
        }
        check(2, r);
        return out.get(JAVA_LONG, 0);
    }

    /** Queues the executable graph on {@code stream} (ordered after earlier launches of the same graph). */
    public void launch(long exec, long stream) {
        check(3, invoke(launch, exec, stream));
    }

    public void destroyExec(long exec) {
        check(4, invoke(destroyExec, exec));
    }

    public void destroyGraph(long graph) {
        check(5, invoke(destroyGraph, graph));
    }

    private static int invoke(MethodHandle function, long a) {
        try {
            return (int) function.invokeExact(a);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private static int invoke(MethodHandle function, long a, long b) {
        try {
            return (int) function.invokeExact(a, b);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    private void check(int function, int result) {
        if (result != CudaConstants.CUDA_SUCCESS) {
            throw new CudaException(SYMBOLS[function], result, driver.errorName(result), driver.errorString(result));
        }
    }

    private static RuntimeException rethrow(Throwable t) {
        if (t instanceof Error e) {
            throw e;
        }
        return t instanceof RuntimeException r ? r : new IllegalStateException(t);
    }
}
