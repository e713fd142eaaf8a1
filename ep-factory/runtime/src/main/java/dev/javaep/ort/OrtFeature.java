package dev.javaep.ort;

import java.util.List;

/**
 * The one table of ORT features javaep gates on the runtime's version: the API version each needs (ORT 1.x
 * offers API x), the slots that carry it, whether javaep implements it, and what javaep does on an older
 * host. Version checks in the bridge ask {@code OrtRuntime.offers(feature)}; slots newer than the negotiated
 * API are additionally left NULL in every struct javaep fills ({@code CallbackStruct}) and refused by
 * {@link FunctionTable#handle}. docs/ort-versions.md states this table for users.
 *
 * <p>javaep negotiates API min({@value OrtApi#COMPILED_API_VERSION}, runtime minor) and refuses runtimes
 * older than {@value OrtApi#MINIMUM_API_VERSION}, so API-24 features are always there.
 */
public enum OrtFeature {
    /** Per-op kernels registered in ORT's kernel registry ({@code ExecutionProvider.kernels()}). */
    KERNEL_REGISTRY(24, Basis.NEGOTIATED_API, true,
            "javaep needs API 24: an older ORT is refused at registration",
            List.of(OrtEpApiSlot.CreateKernelRegistry, OrtEpApiSlot.KernelRegistry_AddKernel,
                    OrtEpApiSlot.CreateKernelDefBuilder, OrtEpApiSlot.KernelDefBuilder_Build,
                    OrtEpApiSlot.EpGraphSupportInfo_LookUpKernel, OrtApiSlot.KernelInfo_GetOperatorDomain,
                    OrtApiSlot.KernelInfo_GetOperatorType, OrtApiSlot.KernelInfo_GetOperatorSinceVersion),
            List.of(OrtEpStruct.GetKernelRegistry, OrtKernelImplStruct.Compute, OrtKernelImplStruct.Release)),

    /** {@code OrtInteropApi} and the EP's external resource importer (memory and semaphores apps own). */
    EXTERNAL_RESOURCE_IMPORTER(24, Basis.NEGOTIATED_API, true,
            "javaep needs API 24: an older ORT is refused at registration",
            List.of(OrtApiSlot.GetInteropApi, OrtApiSlot.RunOptionsSetSyncStream, OrtEpApiSlot.SyncStream_GetImpl),
            List.of(OrtEpFactoryStruct.CreateExternalResourceImporterForDevice,
                    OrtExternalResourceImporterImplStruct.ImportMemory, OrtExternalResourceImporterImplStruct.ImportSemaphore,
                    OrtExternalMemoryHandleStruct.Release, OrtExternalSemaphoreHandleStruct.Release)),

    /** {@code OrtEp::Sync}: ORT waits for the EP's queued device work (IoBinding's input synchronisation). */
    EP_SYNC(25, Basis.NEGOTIATED_API, true,
            "the slot stays NULL (ORT 1.24 has no such member), so IoBinding's synchronisation does not wait on javaep's"
                    + " EPs there; ORT's flush of the EP's stream at the end of a Run is unaffected",
            List.of(),
            List.of(OrtEpStruct.Sync)),

    /** {@code OrtEp::CreateProfiler}: EP events in ORT's profile. */
    EP_PROFILER(25, Basis.NEGOTIATED_API, true,
            "the slot stays NULL: ORT's profile has its own events (one per compiled node) but none of javaep's"
                    + " (javaep:<fused node> with the group's nodes)",
            List.of(OrtEpApiSlot.CreateProfilingEvent, OrtEpApiSlot.ReleaseProfilingEvent,
                    OrtEpApiSlot.ProfilingEventsContainer_AddEvents),
            List.of(OrtEpStruct.CreateProfiler, OrtEpProfilerImplStruct.Release, OrtEpProfilerImplStruct.StartProfiling,
                    OrtEpProfilerImplStruct.EndProfiling)),

    /**
     * ORT's own graph capture: an EP that offers {@code spi.GraphCapture} records a Run and ORT replays it. Filled only
     * for such an EP, with OnRunStart/OnRunEnd (API 23); {@code ReleaseCapturedGraph} follows from API 27.
     */
    GRAPH_CAPTURE(26, Basis.NEGOTIATED_API, true,
            "the slots (and OnRunStart/OnRunEnd) stay NULL: ORT runs every Run through its executor; JavaCuda's"
                    + " enable_cuda_graph=1 is ignored there and its per-group CUDA graphs work as without it",
            List.of(OrtApiSlot.GetRunConfigEntry),
            List.of(OrtEpStruct.IsGraphCaptureEnabled, OrtEpStruct.IsGraphCaptured, OrtEpStruct.ReplayGraph,
                    OrtEpStruct.GetGraphCaptureNodeAssignmentPolicy, OrtEpStruct.OnRunStart, OrtEpStruct.OnRunEnd)),

    /**
     * Compiled groups inside If/Loop/Scan subgraphs and in a second GetCapability pass. No slot: ORT before
     * 1.26 gives such fused nodes the same name and fails the session ("Conflicting with a registered kernel").
     */
    FUSED_GROUPS_IN_SUBGRAPHS(26, Basis.RUNTIME_RELEASE, true,
            "groups are claimed only in the main graph on the first pass; other compiled() nodes are declined"
                    + " (DeclineCode.RUNTIME) and run on the next EP (ORT's CPU EP); per-op kernel claims are unaffected",
            List.of(),
            List.of()),

    /** {@code OrtEp::GetDefaultMemoryDevice}: the device ORT places the EP's session outputs on. */
    DEFAULT_MEMORY_DEVICE(27, Basis.NEGOTIATED_API, false,
            "not implemented: the slot stays NULL on every version, as in an EP built for ORT 1.26",
            List.of(),
            List.of(OrtEpStruct.GetDefaultMemoryDevice)),

    /** {@code OrtApi::KernelContext_GetSyncStream}: the {@code OrtSyncStream} a kernel runs on. */
    KERNEL_CONTEXT_SYNC_STREAM(28, Basis.NEGOTIATED_API, false,
            "declared, not called on any version: kernels take their native stream from"
                    + " KernelContext_GetGPUComputeStream (API 10)",
            List.of(OrtApiSlot.KernelContext_GetSyncStream),
            List.of()),

    /**
     * Importing a host pointer the app owns ({@code ORT_EXTERNAL_MEMORY_HANDLE_TYPE_HOST_ALLOCATION} = 4). An enum
     * value, not a slot: it arrives from a 1.30 runtime although javaep negotiates at most API
     * {@value OrtApi#COMPILED_API_VERSION}, so the runtime's own release decides.
     */
    HOST_ALLOCATION_IMPORT(30, Basis.RUNTIME_RELEASE, true,
            "CanImportMemory answers false; an ImportMemory of it that reaches javaep fails with NOT_IMPLEMENTED naming"
                    + " the types the EP imports",
            List.of(),
            List.of());

    /** Which version decides whether a feature is there. */
    public enum Basis {
        /** A slot in a table or struct: present when the negotiated API has it. */
        NEGOTIATED_API,
        /** A behaviour or enum value of the running ORT: present from that release on, whatever was negotiated. */
        RUNTIME_RELEASE
    }

    /** {@code OrtExternalMemoryHandleType} of a host allocation, added in API 30. */
    public static final int HOST_ALLOCATION_HANDLE_TYPE = 4;

    private final int sinceApi;
    private final Basis basis;
    private final boolean implemented;
    private final String onOlderRuntime;
    private final List<FunctionSlot> calls;
    private final List<CallbackSlot> callbacks;

    OrtFeature(int sinceApi, Basis basis, boolean implemented, String onOlderRuntime, List<? extends FunctionSlot> calls,
               List<? extends CallbackSlot> callbacks) {
        this.sinceApi = sinceApi;
        this.basis = basis;
        this.implemented = implemented;
        this.onOlderRuntime = onOlderRuntime;
        this.calls = List.copyOf(calls);
        this.callbacks = List.copyOf(callbacks);
    }

    /** The first ORT API version with the feature; ORT 1.x offers API x. */
    public int sinceApi() {
        return sinceApi;
    }

    /** The first ORT release with the feature, e.g. "1.26". */
    public String sinceRelease() {
        return "1." + sinceApi;
    }

    public Basis basis() {
        return basis;
    }

    /** Whether javaep uses the feature where the runtime has it. */
    public boolean implemented() {
        return implemented;
    }

    /** What javaep does on a runtime without the feature (for features javaep does not implement: on any runtime). */
    public String onOlderRuntime() {
        return onOlderRuntime;
    }

    /** ORT functions javaep calls for the feature. */
    public List<FunctionSlot> calls() {
        return calls;
    }

    /** Members of EP-implemented structs the feature needs filled. */
    public List<CallbackSlot> callbacks() {
        return callbacks;
    }

    /** Whether a runtime of release 1.{@code runtimeApi} that negotiated {@code negotiatedApi} has the feature. */
    public boolean availableIn(int negotiatedApi, int runtimeApi) {
        return (basis == Basis.NEGOTIATED_API ? negotiatedApi : runtimeApi) >= sinceApi;
    }

    /** The feature that decides whether an {@code OrtExternalMemoryHandleType} value can arrive at an importer. */
    public static OrtFeature forExternalMemoryHandleType(int handleType) {
        return handleType == HOST_ALLOCATION_HANDLE_TYPE ? HOST_ALLOCATION_IMPORT : EXTERNAL_RESOURCE_IMPORTER;
    }
}
