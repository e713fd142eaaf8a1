package dev.javaep.bridge;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtEpStruct;
import dev.javaep.ort.OrtFeature;
import dev.javaep.spi.ExecutionProvider;
import dev.javaep.spi.GraphCapture;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.EnumSet;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.LongAdder;

/**
 * The {@code OrtEp} side of ONNX Runtime's graph capture ({@link OrtFeature#GRAPH_CAPTURE}) for an EP that offers a
 * {@link GraphCapture}: {@link EpBridge}'s upcalls for the members below delegate here. An EP without one, or a
 * runtime below API 26, gets these members NULL: ORT then never captures and calls no OnRunStart/OnRunEnd of javaep's.
 *
 * <p>Counts ORT's replays and captured Runs for tests and benchmarks ({@link #replays()}, {@link #capturedRuns()}).
 */
public final class GraphCaptureBridge {
    /**
     * The members a graph-capturing EP fills (ORT calls OnRunStart/OnRunEnd of no other javaep EP): the feature's, read
     * from {@link OrtFeature#GRAPH_CAPTURE} so the two lists cannot drift, and {@code ReleaseCapturedGraph} (API 27).
     */
    static final Set<OrtEpStruct> SLOTS = slots();

    private static Set<OrtEpStruct> slots() {
        Set<OrtEpStruct> slots = EnumSet.of(OrtEpStruct.ReleaseCapturedGraph);
        for (var slot : OrtFeature.GRAPH_CAPTURE.callbacks()) {
            if (slot instanceof OrtEpStruct member) {
                slots.add(member);
            }
        }
        return slots;
    }

    /** Read per Run (OnRunStart, OnRunEnd): its C string is made once. */
    static final OrtApi.ConfigKey ANNOTATION_KEY = OrtApi.ConfigKey.of(GraphCapture.ANNOTATION_RUN_OPTION);
    private static final LongAdder REPLAYS = new LongAdder();
    private static final LongAdder RUNS_ENDED = new LongAdder();

    private final GraphCapture capture;
    private final OrtRuntime runtime;

    private GraphCaptureBridge(GraphCapture capture, OrtRuntime runtime) {
        this.capture = capture;
        this.runtime = runtime;
    }

    /**
     * The bridge for {@code provider}'s capture, or empty, in which case {@link #SLOTS} are cleared in {@code struct}
     * (CallbackStruct fills every implemented member the negotiated version has).
     */
    static Optional<GraphCaptureBridge> attach(ExecutionProvider provider, OrtRuntime runtime, MemorySegment struct) {
        Optional<GraphCapture> capture = runtime.offers(OrtFeature.GRAPH_CAPTURE) ? provider.graphCapture() : Optional.empty();
        if (capture.isEmpty()) {
            for (OrtEpStruct slot : SLOTS) {
                struct.set(ValueLayout.ADDRESS, slot.byteOffset(), MemorySegment.NULL);
            }
        }
        return capture.map(c -> new GraphCaptureBridge(c, runtime));
    }

    /** ORT's replays through javaep's EPs in this process ({@code ReplayGraph} calls that returned). */
    public static long replays() {
        return REPLAYS.sum();
    }

    /** Runs of graph-capturing javaep EPs that ORT ran through its executor (warm-ups and captures). */
    public static long capturedRuns() {
        return RUNS_ENDED.sum();
    }

    boolean enabled() {
        return capture.enabled();
    }

    boolean isCaptured(int annotationId) {
        return capture.isCaptured(annotationId);
    }

    void replay(int annotationId) {
        capture.replay(annotationId);
        REPLAYS.increment();
    }

    /** {@code OrtGraphCaptureNodeAssignmentPolicy}'s value (ALL_NODES_ON_EP = 0, ALLOW_CPU_FOR_SHAPES = 1). */
    int nodeAssignmentPolicy() {
        return switch (capture.nodeAssignment()) {
            case ALL_NODES_ON_EP -> 0;
            case ALLOW_CPU_FOR_SHAPES -> 1;
        };
    }

    void release(int annotationId) {
        capture.release(annotationId);
    }

    void onRunStart(MemorySegment runOptions) {
        capture.onRunStart(annotationId(runOptions));
    }

    void onRunEnd(MemorySegment runOptions, boolean synchronize) {
        capture.onRunEnd(annotationId(runOptions), synchronize);
        RUNS_ENDED.increment();
    }

    /** The Run's graph annotation id as ORT reads it ({@value GraphCapture#ANNOTATION_RUN_OPTION}, default 0). */
    int annotationId(MemorySegment runOptions) {
        return parseAnnotationId(runtime.api().runConfigEntry(runOptions, ANNOTATION_KEY));
    }

    static int parseAnnotationId(String value) {
        if (value == null) {
            return GraphCapture.DEFAULT_ANNOTATION_ID;
        }
        try {
            return Integer.parseInt(value.strip());
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("javaep: run option " + GraphCapture.ANNOTATION_RUN_OPTION
                    + " must be a whole number (-1: no capture), not '" + value + "'");
        }
    }
}
