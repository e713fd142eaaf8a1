package dev.javaep.host;


import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;

/** {@code OrtRunOptions}: per-run settings. Owned; close it after the runs that use it. */
public final class RunOptions implements AutoCloseable {
    /** The API that added {@code RunOptionsSetSyncStream} (ORT 1.24). */
    public static final int SYNC_STREAM_API = 24;

    private final OrtApi api;
    private MemorySegment options;
    private String runTag;
    private SyncStream syncStream; // held so that the stream the runs use is visible to whoever holds these options

    private RunOptions(OrtApi api, MemorySegment options) {
        this.api = api;
        this.options = options;
    }

    /** {@code CreateRunOptions}. */
    public static RunOptions create() {
        OrtApi api = OrtHost.shared().api();
        return new RunOptions(api, OrtCalls.pointerOut(api, OrtApiSlot.CreateRunOptions));
    }

    /** The {@code OrtRunOptions*}. */
    public MemorySegment handle() {
        return OrtCalls.live(options, "RunOptions");
    }

    /** {@code RunOptionsSetRunTag}: names the run in ORT's logs and profiles. */
    public RunOptions runTag(String tag) {
        try (Arena arena = Arena.ofConfined()) {
            api.check(api.table().call(OrtApiSlot.RunOptionsSetRunTag, handle(), arena.allocateFrom(tag)));
            this.runTag = tag;
            return this;
        }
    }

    /** The tag last set through {@link #runTag(String)}, or null. */
    public String runTag() {
        return runTag;
    }

    /**
     * {@code RunOptionsSetSyncStream} (API 24): runs with these options use {@code stream} instead of the
     * session's own, so work queued on it before the run (imports, copies, semaphore waits) is ordered
     * before the run's kernels. The stream must stay open for every run that uses these options.
     *
     * @throws UnsupportedOperationException on a runtime older than API 24
     */
    public RunOptions syncStream(SyncStream stream) {
        if (api.version() < SYNC_STREAM_API) {
            throw new UnsupportedOperationException("javaep: RunOptionsSetSyncStream needs ORT API " + SYNC_STREAM_API
                    + " (ONNX Runtime 1.24) but the runtime offers API " + api.version() + "; use a newer ONNX Runtime");
        }
        try {
            api.table().handle(OrtApiSlot.RunOptionsSetSyncStream).invokeExact(handle(), stream.ortStream());
            this.syncStream = stream;
            return this;
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** The stream last set through {@link #syncStream(SyncStream)}, or null (not owned by these options). */
    public SyncStream syncStream() {
        return syncStream;
    }

    @Override
    public void close() {
        if (options != null) {
            api.table().callVoid(OrtApiSlot.ReleaseRunOptions, options);
            options = null;
        }
    }
}
