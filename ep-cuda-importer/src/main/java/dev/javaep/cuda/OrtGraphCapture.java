package dev.javaep.cuda;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.spi.EpOptions;
import dev.javaep.spi.GraphCapture;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * JavaCuda's part in ONNX Runtime's graph capture, on with the EP option {@value #OPTION} = 1 (the name ORT's CUDA EP
 * uses). ORT runs the first Runs of an annotation id as usual; JavaCuda lets {@value #WARM_UP_RUNS} of them run
 * eagerly (they compile kernels, let cuDNN time its algorithms, fix the plans and upload the groups' constants:
 * everything that synchronises, which a capture forbids), records the next one whole on the stream its compiled
 * nodes run on ({@code cuStreamBeginCapture} at the Run's first Compute, as ORT's stream is not known at OnRunStart;
 * {@code cuStreamEndCapture} at OnRunEnd), launches the graph (the recording ran nothing) and keeps it per annotation
 * id. ORT then skips its executor for that id and calls {@link #replay}, which launches the graph and waits for it.
 *
 * <p>While a session captures, its compiled groups launch eagerly ({@link #joins}): a group's own CUDA graph cannot
 * be captured inside ORT's, and would only add a launch inside the whole-Run graph. The workspace a group allocates
 * per Run is stream-ordered ({@code cuMemAllocAsync}), which a capture turns into the graph's own memory.
 *
 * <p>One Run at a time ({@link JavaCudaExecutionProvider#concurrentRunSupported()} is false with capture on), so the
 * per-id state needs no more than this object's lock; the Run being recorded is the calling thread's, which is where
 * ORT calls OnRunStart, the Computes and OnRunEnd.
 */
public final class OrtGraphCapture implements GraphCapture, AutoCloseable {
    /** The EP option, as ORT's CUDA EP names it: "1" (or "true") captures, "0" (the default) does not. */
    public static final String OPTION = "enable_cuda_graph";
    /** Eager Runs of an annotation id before the one recorded (ORT's CUDA EP likewise runs regular Runs first). */
    static final int WARM_UP_RUNS = 2;

    /** What a capture needs of CUDA; {@link CudaRecorder} in production, a fake in unit tests. */
    interface Recorder {
        void synchronizeDevice();

        void beginCapture(long stream);

        /** Ends the capture of {@code stream} and returns the instantiated graph. */
        long endCapture(long stream);

        void launch(long executable, long stream);

        void synchronize(long stream);

        void destroy(long executable);

        void destroyStream(long stream);
    }

    /** The calling thread's Run of a capturing session between OnRunStart and OnRunEnd; null outside one. */
    private static final ThreadLocal<Run> CURRENT = new ThreadLocal<>();
    /** Runs under way in the process: {@link #joins} reads the thread-local only when some are. */
    private static final AtomicInteger RUNS = new AtomicInteger();
    /** Streams being recorded: {@link CudaStream#flush} must not synchronise them. */
    private static final Set<Long> RECORDING_STREAMS = ConcurrentHashMap.newKeySet();

    private final Recorder recorder;
    /** The stream replays launch on (the EP's own: ORT's streams come and go with its stream pool). */
    private final long replayStream;
    private final Map<Integer, Long> graphs = new HashMap<>();
    private final Map<Integer, Integer> eagerRuns = new HashMap<>();
    /** Per annotation id: the Computes of JavaCuda's groups in its last eager Run, which the recording must repeat. */
    private final Map<Integer, Integer> computesPerRun = new HashMap<>();
    private long replays;

    OrtGraphCapture(Recorder recorder, long replayStream) {
        this.recorder = recorder;
        this.replayStream = replayStream;
    }

    /** Whether the session's EP options ({@link EpOptions}) turn capture on: {@value #OPTION} = 1 or true. */
    static boolean enabledBy(Map<String, String> sessionOptions) {
        return EpOptions.flag(sessionOptions, JavaCudaExecutionProviderFactory.NAME, OPTION, false);
    }

    /** Capture on {@code device}, or the reason it cannot be (a driver without the graph functions). */
    static OrtGraphCapture on(CudaDevice device) {
        if (!device.driver().hasGraphs()) {
            throw new IllegalArgumentException("javaep: " + JavaCudaExecutionProviderFactory.NAME + " option " + OPTION
                    + "=1 needs CUDA graphs (a driver of CUDA 11.4 or later); this driver lacks"
                    + " cuGraphInstantiateWithFlags");
        }
        Recorder recorder = new CudaRecorder(device);
        device.makeCurrent();
        long replayStream = device.driver().streamCreate(CudaDriver.STREAM_NON_BLOCKING);
        try {
            return new OrtGraphCapture(recorder, replayStream);
        } catch (RuntimeException | Error e) {
            // nobody would hold the stream to destroy it: the EP's close() only reaches a capture that was made
            try {
                recorder.destroyStream(replayStream);
            } catch (RuntimeException | Error cleanup) {
                e.addSuppressed(cleanup);
            }
            throw e;
        }
    }

    /**
     * The hook of compiled groups ({@code CudaSubgraphProgram.compute}): whether the calling thread's Run belongs to
     * ORT's capture (a warm-up or the recording), in which case the group launches eagerly on {@code stream}. The
     * recording Run's first Compute starts the capture of its stream; a second stream in it fails the Run.
     */
    public static boolean joins(long stream) {
        if (RUNS.get() == 0) {
            return false; // no capturing session runs: the common case costs one volatile read
        }
        Run run = CURRENT.get();
        return run != null && run.join(stream);
    }

    /** Whether {@code stream} is being recorded (its synchronisation would invalidate the capture). */
    static boolean isRecording(long stream) {
        return !RECORDING_STREAMS.isEmpty() && RECORDING_STREAMS.contains(stream);
    }

    @Override
    public boolean enabled() {
        return true;
    }

    @Override
    public synchronized boolean isCaptured(int annotationId) {
        return graphs.containsKey(annotationId);
    }

    @Override
    public void replay(int annotationId) {
        long executable;
        synchronized (this) {
            Long graph = graphs.get(annotationId);
            if (graph == null) {
                throw new IllegalStateException("javaep: no graph was captured for annotation id " + annotationId);
            }
            executable = graph;
            recorder.launch(executable, replayStream); // under the lock: release() cannot destroy it meanwhile
            replays++;
        }
        // ORT reads the bound outputs once ReplayGraph returns (older runtimes do not synchronise after it)
        recorder.synchronize(replayStream);
    }

    @Override
    public void onRunStart(int annotationId) {
        Run stale = CURRENT.get();
        if (stale != null) {
            stale.abandon(); // the last Run on this thread failed before its OnRunEnd
        }
        if (annotationId == SKIP_ANNOTATION_ID) {
            return;
        }
        boolean record;
        synchronized (this) {
            if (graphs.containsKey(annotationId)) {
                return; // ORT replays captured ids without a Run; nothing to do if one reaches here
            }
            record = eagerRuns.getOrDefault(annotationId, 0) >= WARM_UP_RUNS;
        }
        if (record) {
            recorder.synchronizeDevice(); // the warm-ups' work is done; the recording starts from a quiet device
        }
        CURRENT.set(new Run(this, annotationId, record));
        RUNS.incrementAndGet();
    }

    @Override
    public void onRunEnd(int annotationId, boolean synchronize) {
        Run run = CURRENT.get();
        if (run == null || run.owner != this) {
            return; // a skipped id, or a Run ORT replays
        }
        run.finish();
        if (!run.record) {
            synchronized (this) {
                eagerRuns.merge(annotationId, 1, Integer::sum);
                computesPerRun.put(annotationId, run.computes);
            }
            return;
        }
        if (run.stream == 0) {
            throw new IllegalStateException("javaep: ORT's graph capture Run " + annotationId + " queued nothing on "
                    + JavaCudaExecutionProviderFactory.NAME + " (no compiled node ran): there is nothing to capture");
        }
        long executable;
        try {
            executable = recorder.endCapture(run.stream);
        } catch (RuntimeException e) {
            throw new IllegalStateException("javaep: " + JavaCudaExecutionProviderFactory.NAME + " could not capture the"
                    + " Run (" + e.getMessage() + "); a step synchronised or copied from pageable host memory, or"
                    + " javaep.cuda.graphs is off so the groups' constants are uploaded per Run", e);
        } finally {
            RECORDING_STREAMS.remove(run.stream);
        }
        int expected;
        synchronized (this) {
            expected = computesPerRun.getOrDefault(annotationId, run.computes);
        }
        if (run.failure != null || run.computes != expected) {
            // ORT calls OnRunEnd after a failed Run too: a Run that went wrong must not become the replayed graph
            recorder.destroy(executable);
            throw new IllegalStateException("javaep: the Run recorded for ORT's graph capture is not kept: " + (
                    run.failure != null ? run.failure : "it ran " + run.computes + " of "
                            + JavaCudaExecutionProviderFactory.NAME + "'s " + expected + " compiled nodes"));
        }
        synchronized (this) {
            Long replaced = graphs.put(annotationId, executable);
            if (replaced != null) {
                recorder.destroy(replaced);
            }
        }
        recorder.launch(executable, run.stream); // the recording ran nothing: this Run's outputs come from here
        if (synchronize) {
            recorder.synchronize(run.stream);
        }
    }

    @Override
    public synchronized void release(int annotationId) {
        Long executable = graphs.remove(annotationId);
        eagerRuns.remove(annotationId);
        if (executable != null) {
            recorder.destroy(executable);
        }
    }

    /** Replays launched (tests, benchmarks). */
    synchronized long replays() {
        return replays;
    }

    @Override
    public synchronized void close() {
        for (long executable : graphs.values()) {
            recorder.destroy(executable);
        }
        graphs.clear();
        recorder.destroyStream(replayStream);
    }

    /** One Run of the calling thread between OnRunStart and OnRunEnd. */
    private static final class Run {
        final OrtGraphCapture owner;
        final int annotationId;
        final boolean record;
        /** The recorded stream, 0 until the first Compute. */
        long stream;
        /** Computes of compiled groups in this Run so far. */
        int computes;
        /** Why the recording cannot be kept, once that is known before OnRunEnd; else null. */
        String failure;
        private boolean finished;

        Run(OrtGraphCapture owner, int annotationId, boolean record) {
            this.owner = owner;
            this.annotationId = annotationId;
            this.record = record;
        }

        boolean join(long computeStream) {
            computes++;
            if (!record || computeStream == stream) {
                return true;
            }
            if (stream != 0) {
                failure = "ORT's graph capture records one stream, but Run " + annotationId + " queued work on 0x"
                        + Long.toHexString(stream) + " and 0x" + Long.toHexString(computeStream);
                throw new IllegalStateException("javaep: " + failure);
            }
            owner.recorder.beginCapture(computeStream);
            stream = computeStream;
            RECORDING_STREAMS.add(computeStream);
            return true;
        }

        void finish() {
            if (!finished) {
                finished = true;
                CURRENT.remove();
                RUNS.decrementAndGet();
            }
        }

        /** Ends a recording whose Run never reached OnRunEnd, discarding what it captured. */
        void abandon() {
            finish();
            if (record && stream != 0) {
                RECORDING_STREAMS.remove(stream);
                try {
                    owner.recorder.destroy(owner.recorder.endCapture(stream));
                } catch (RuntimeException ignored) {
                    // the capture was invalidated by the failure; ending it is all that was needed
                }
            }
        }
    }

    /** The {@link Recorder} over the driver. */
    private record CudaRecorder(CudaDevice device) implements Recorder {
        @Override
        public void synchronizeDevice() {
            device.synchronize();
        }

        @Override
        public void beginCapture(long stream) {
            device.driver().streamBeginCapture(stream);
        }

        @Override
        public long endCapture(long stream) {
            long graph = device.driver().streamEndCapture(stream);
            try {
                return device.driver().graphInstantiate(graph);
            } finally {
                device.driver().graphDestroy(graph);
            }
        }

        @Override
        public void launch(long executable, long stream) {
            device.makeCurrent();
            device.driver().graphLaunch(executable, stream);
        }

        @Override
        public void synchronize(long stream) {
            device.driver().streamSynchronize(stream);
        }

        @Override
        public void destroy(long executable) {
            if (!device.isLost()) {
                device.makeCurrent();
                device.driver().graphExecDestroy(executable);
            }
        }

        @Override
        public void destroyStream(long stream) {
            if (!device.isLost()) {
                device.makeCurrent();
                device.driver().streamDestroy(stream);
            }
        }
    }
}
