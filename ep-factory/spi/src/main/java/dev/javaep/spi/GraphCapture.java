package dev.javaep.spi;

/**
 * An EP's part in ONNX Runtime's own graph capture (ORT ≥ 1.26): ORT runs a session's first Runs as usual, the EP
 * records one of them (between {@link #onRunStart} and {@link #onRunEnd}) into a device graph, and from then on ORT
 * skips its executor for a Run of that annotation id and asks the EP to {@link #replay} the graph instead.
 *
 * <p>An EP offers it through {@link ExecutionProvider#graphCapture()} only where the session asked for it (an EP
 * option): javaep then fills the {@code OrtEp} members {@code IsGraphCaptureEnabled}, {@code IsGraphCaptured},
 * {@code ReplayGraph}, {@code GetGraphCaptureNodeAssignmentPolicy} (and {@code ReleaseCapturedGraph} from API 27),
 * plus {@code OnRunStart}/{@code OnRunEnd}, when the negotiated ORT API has them; on an older ORT they stay NULL and
 * every Run runs normally.
 *
 * <p>ORT's contract, which the EP relies on: it refuses the session unless every node is on the EP (see
 * {@link NodeAssignment}); a replay reads and writes the device addresses of the recorded Run, so inputs and outputs
 * are bound (IoBinding) at fixed addresses; one Run at a time (the EP answers
 * {@link ExecutionProvider#concurrentRunSupported()} false). Annotation id {@value #DEFAULT_ANNOTATION_ID} unless
 * the Run's options set {@value #ANNOTATION_RUN_OPTION}; {@value #SKIP_ANNOTATION_ID} runs without capture.
 */
public interface GraphCapture {
    /** The run option ({@code OrtRunOptions} config entry) that selects a Run's graph, as ORT names it. */
    String ANNOTATION_RUN_OPTION = "gpu_graph_id";
    int DEFAULT_ANNOTATION_ID = 0;
    /** ORT's annotation id for a Run that is neither captured nor replayed. */
    int SKIP_ANNOTATION_ID = -1;

    /** Where ORT allows the session's nodes to be when this EP captures ({@code OrtGraphCaptureNodeAssignmentPolicy}). */
    enum NodeAssignment {
        /** Every node on this EP, or ORT refuses the session (the strict rule, ORT's default). */
        ALL_NODES_ON_EP,
        /** Shape computations may stay on ORT's CPU EP. */
        ALLOW_CPU_FOR_SHAPES
    }

    /** Whether ORT should capture and replay this session's Runs ({@code IsGraphCaptureEnabled}). */
    boolean enabled();

    /** Whether the graph of {@code annotationId} is recorded, so that ORT replays instead of running. */
    boolean isCaptured(int annotationId);

    /** Launches the recorded graph of {@code annotationId}; its outputs are complete when this returns. */
    void replay(int annotationId);

    /** A Run begins on the calling thread; the EP may start recording it. */
    void onRunStart(int annotationId);

    /**
     * The Run that began on the calling thread ended; a recording Run ends its recording here and launches the graph
     * (what a recording queues does not run). {@code synchronize}: ORT wants the device work done on return.
     */
    void onRunEnd(int annotationId, boolean synchronize);

    /** Frees the graph of {@code annotationId} ({@code ReleaseCapturedGraph}, API 27); a later Run records it anew. */
    default void release(int annotationId) {}

    default NodeAssignment nodeAssignment() {
        return NodeAssignment.ALL_NODES_ON_EP;
    }
}
