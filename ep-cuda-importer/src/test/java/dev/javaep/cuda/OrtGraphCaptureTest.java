package dev.javaep.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.spi.GraphCapture;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** ORT's graph capture as JavaCuda takes part in it, over a recorder that logs the CUDA calls (no GPU). */
class OrtGraphCaptureTest {
    private static final long ORT_STREAM = 0x51;
    private static final long REPLAY_STREAM = 0x77;

    /** Logs each call; executables are 1000, 1001, ... */
    private static final class LoggingRecorder implements OrtGraphCapture.Recorder {
        final List<String> calls = new ArrayList<>();
        private long nextExecutable = 1000;

        // @formatter:off (one line per call: the log is the point)
        @Override public void synchronizeDevice() { calls.add("syncDevice"); }
        @Override public void beginCapture(long stream) { calls.add("begin " + stream); }
        @Override public long endCapture(long stream) { calls.add("end " + stream); return nextExecutable++; }
        @Override public void launch(long executable, long stream) { calls.add("launch " + executable + " on " + stream); }
        @Override public void synchronize(long stream) { calls.add("sync " + stream); }
        @Override public void destroy(long executable) { calls.add("destroy " + executable); }
        @Override public void destroyStream(long stream) { calls.add("destroyStream " + stream); }
        // @formatter:on
    }

    private final LoggingRecorder recorder = new LoggingRecorder();
    private final OrtGraphCapture capture = new OrtGraphCapture(recorder, REPLAY_STREAM);

    @AfterEach
    void closeCapture() {
        capture.close();
    }

    /** One Run of ORT's executor: OnRunStart, {@code groups} Computes on {@code stream}, OnRunEnd. */
    private List<Boolean> run(int annotationId, int groups, long stream) {
        capture.onRunStart(annotationId);
        List<Boolean> joined = new ArrayList<>();
        for (int i = 0; i < groups; i++) {
            joined.add(OrtGraphCapture.joins(stream));
        }
        capture.onRunEnd(annotationId, true);
        return joined;
    }

    @Test
    void theOptionIsOrtCudaEpsNameZeroOrOneAndOffByDefault() {
        String key = "ep." + JavaCudaExecutionProviderFactory.NAME + "." + OrtGraphCapture.OPTION;
        assertFalse(OrtGraphCapture.enabledBy(Map.of()));
        assertTrue(OrtGraphCapture.enabledBy(Map.of(key, "1")));
        assertTrue(OrtGraphCapture.enabledBy(Map.of(key.toLowerCase(java.util.Locale.ROOT), " true")));
        assertFalse(OrtGraphCapture.enabledBy(Map.of(key, "0")));
        assertFalse(OrtGraphCapture.enabledBy(Map.of("ep.JavaCpuExecutionProvider.enable_cuda_graph", "1")));
        var e = assertThrows(IllegalArgumentException.class, () -> OrtGraphCapture.enabledBy(Map.of(key, "yes")));
        assertTrue(e.getMessage().contains("enable_cuda_graph must be 0 or 1"), e.getMessage());
    }

    @Test
    void twoEagerWarmUpsThenTheThirdRunIsRecordedWholeLaunchedAndReplayedFromThenOn() {
        assertFalse(OrtGraphCapture.joins(ORT_STREAM), "outside a Run groups run as they always do");
        for (int warmUp = 0; warmUp < OrtGraphCapture.WARM_UP_RUNS; warmUp++) {
            assertEquals(List.of(true, true), run(0, 2, ORT_STREAM), "warm-ups run the groups eagerly");
            assertFalse(capture.isCaptured(0));
        }
        assertEquals(List.of(), recorder.calls, "warm-ups touch no graph");

        capture.onRunStart(0);
        assertTrue(OrtGraphCapture.joins(ORT_STREAM));
        assertTrue(OrtGraphCapture.isRecording(ORT_STREAM), "CudaStream.flush must not synchronise it now");
        assertTrue(OrtGraphCapture.joins(ORT_STREAM));
        capture.onRunEnd(0, true);
        assertFalse(OrtGraphCapture.isRecording(ORT_STREAM));
        assertEquals(List.of("syncDevice", "begin 81", "end 81", "launch 1000 on 81", "sync 81"), recorder.calls);
        assertTrue(capture.isCaptured(0));
        assertFalse(capture.isCaptured(1), "each annotation id has its own graph");

        recorder.calls.clear();
        capture.replay(0);
        assertEquals(List.of("launch 1000 on 119", "sync 119"), recorder.calls, "replays on the EP's own stream, waited");
        assertEquals(1, capture.replays());
        assertFalse(OrtGraphCapture.joins(ORT_STREAM));
    }

    @Test
    void theSkipIdNeitherCountsNorRecords() {
        for (int i = 0; i < 5; i++) {
            assertEquals(List.of(false), run(GraphCapture.SKIP_ANNOTATION_ID, 1, ORT_STREAM));
        }
        assertFalse(capture.isCaptured(GraphCapture.SKIP_ANNOTATION_ID));
        assertEquals(List.of(), recorder.calls);
    }

    @Test
    void aRecordingOverTwoStreamsOrWithFewerComputesThanTheWarmUpsFailsAndKeepsNoGraph() {
        run(0, 2, ORT_STREAM);
        run(0, 2, ORT_STREAM);
        capture.onRunStart(0);
        assertTrue(OrtGraphCapture.joins(ORT_STREAM));
        var twoStreams = assertThrows(IllegalStateException.class, () -> OrtGraphCapture.joins(ORT_STREAM + 1));
        assertTrue(twoStreams.getMessage().contains("records one stream"), twoStreams.getMessage());
        var stoppedEarly = assertThrows(IllegalStateException.class, () -> capture.onRunEnd(0, true));
        assertTrue(stoppedEarly.getMessage().contains("not kept"), stoppedEarly.getMessage());
        assertFalse(capture.isCaptured(0));
        assertTrue(recorder.calls.contains("destroy 1000"), recorder.calls::toString);

        recorder.calls.clear();
        assertEquals(List.of(true, true), run(0, 2, ORT_STREAM), "the next Run records again");
        assertTrue(capture.isCaptured(0));
    }

    @Test
    void aRecordingWhoseRunNeverEndedIsAbandonedByTheNextRunOnTheThread() {
        run(0, 1, ORT_STREAM);
        run(0, 1, ORT_STREAM);
        capture.onRunStart(0);
        OrtGraphCapture.joins(ORT_STREAM);
        // no OnRunEnd: ORT's Run failed before it
        capture.onRunStart(0);
        assertFalse(OrtGraphCapture.isRecording(ORT_STREAM));
        assertEquals(List.of("syncDevice", "begin 81", "end 81", "destroy 1000", "syncDevice"), recorder.calls);
        OrtGraphCapture.joins(ORT_STREAM);
        capture.onRunEnd(0, false);
        assertTrue(capture.isCaptured(0));
        assertEquals("launch 1001 on 81", recorder.calls.getLast(), "no wait when ORT does not ask for one");
    }

    @Test
    void releaseFreesTheGraphAndTheNextRunsWarmUpAgain() {
        run(0, 1, ORT_STREAM);
        run(0, 1, ORT_STREAM);
        run(0, 1, ORT_STREAM);
        capture.release(0);
        assertFalse(capture.isCaptured(0));
        assertEquals("destroy 1000", recorder.calls.getLast());
        run(0, 1, ORT_STREAM);
        assertFalse(capture.isCaptured(0), "a released id warms up again");
        var e = assertThrows(IllegalStateException.class, () -> capture.replay(0));
        assertTrue(e.getMessage().contains("no graph was captured"), e.getMessage());
    }
}
