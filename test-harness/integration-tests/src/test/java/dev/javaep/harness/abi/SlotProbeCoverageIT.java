package dev.javaep.harness.abi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.host.OrtHost;
import dev.javaep.ort.FunctionSlot;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.junit.jupiter.api.Test;

/**
 * Which slots javaep calls are probed for identity (a {@link Probes} test whose result would differ if the slot
 * were its neighbour), which are not and why, and which are skipped on this runtime because they are newer. Fails
 * when a slot javaep binds has neither a probe nor a stated reason, so a slot added to tools/gen_slots.py needs
 * one or the other. The printed table is the coverage report.
 */
class SlotProbeCoverageIT {
    static final List<Class<?>> PROBE_CLASSES = List.of(StatusAndPairsProbeIT.class, MemoryProbeIT.class, TensorProbeIT.class,
            SessionProbeIT.class, EpDeviceProbeIT.class, GraphProbeIT.class, KernelDefProbeIT.class);

    /**
     * The profiler's slots need the OrtProfilingEventsContainer ORT hands only to OrtEpProfilerImpl::EndProfiling;
     * EpProfilerIT (partition) checks their effect in ORT's profile JSON instead: the event's name, category, args,
     * timestamp and duration as javaep passed them to CreateProfilingEvent, one per Compute (AddEvents), and
     * ReleaseProfilingEvent after each (ORT copies the events).
     */
    private static final String PROFILER_REASON = "called only inside OrtEpProfilerImpl::EndProfiling (API 25), whose"
            + " container no raw probe can get; EpProfilerIT reads every value javaep passed back from ORT's profile JSON";

    /** Slots javaep binds but no probe calls, with the reason. */
    static final Map<String, String> NOT_PROBED = Map.of(
            "OrtApi::KernelContext_GetSyncStream", "bound but never called by javaep: a kernel's stream comes from"
                    + " KernelContext_GetGPUComputeStream (probed)",
            "OrtApi::KernelContext_GetAllocator", "bound but never called by javaep: kernels get their outputs from"
                    + " KernelContext_GetOutput (probed); javaep's EPs allocate their scratch memory themselves",
            "OrtEpApi::NodeComputeContext_NodeName", "bound but never called by javaep: Compile names the fused node"
                    + " through Node_GetName (probed)",
            "OrtEpApi::ReleaseEpDevice", "called only to undo an OrtEpDevice when registering its memory infos fails;"
                    + " it needs an OrtEpFactory*, which exists only inside a factory callback, and no test can make"
                    + " EpDevice_AddAllocatorInfo fail",
            "OrtEpApi::CreateProfilingEvent", PROFILER_REASON,
            "OrtEpApi::ProfilingEventsContainer_AddEvents", PROFILER_REASON,
            "OrtEpApi::ReleaseProfilingEvent", PROFILER_REASON,
            "OrtEpApi::KernelInfo_GetEp", "declared for the validation layer, which replaces it in the OrtEpApi copy it"
                    + " hands a vendor (so that a kernel finds the vendor's OrtEp, not the layer's proxy); javaep never"
                    + " calls it, and CGalleryValidationIT's kernel-registry EP goes through the replacement");

    /**
     * What our tables declare beyond the generated (API 28) declaration, and what covers it. Unbound slots need no
     * probe: javaep never calls them.
     */
    static final Map<String, String> BEYOND_API_28 = new LinkedHashMap<>();

    static {
        BEYOND_API_28.put("OrtApi[424] SessionOptionsSetWeightlessSourceModelBuffer (API 29)", "not bound: javaep never calls it");
        BEYOND_API_28.put("OrtApi[425] KernelContext_GetPreallocatedOutput (API 30)", "not bound: javaep never calls it");
        BEYOND_API_28.put("OrtEpApi[73] SessionOptionsGetWeightlessSourceModelBuffer (API 29)", "not bound: javaep never calls it");
        BEYOND_API_28.put("OrtEp.GetWeightlessSupport @200 (API 29)", "declared for the struct size; javaep leaves it NULL");
        BEYOND_API_28.put("OrtExternalMemoryHandleType HOST_ALLOCATION = 4 (API 30)",
                "EpDeviceProbeIT.theProbeImporterIsAskedWhatTheInteropCallsSay: reaches an importer from ORT 1.30 on, refused before");
    }

    @Test
    void everyBoundSlotIsProbedOrSaysWhyNot() {
        Map<String, List<String>> probedBy = new TreeMap<>();
        Map<String, String> rulesOut = new TreeMap<>();
        for (Class<?> probeClass : PROBE_CLASSES) {
            for (Method method : probeClass.getDeclaredMethods()) {
                Probes probes = method.getAnnotation(Probes.class);
                if (probes == null) {
                    continue;
                }
                if (!probes.rulesOut().isEmpty()) {
                    rulesOut.put(probeClass.getSimpleName() + "." + method.getName(), probes.rulesOut());
                }
                for (String slot : probes.value()) {
                    ProbedSlots.slot(slot); // a name that is no bound slot fails here
                    probedBy.computeIfAbsent(slot, s -> new ArrayList<>()).add(probeClass.getSimpleName() + "." + method.getName());
                }
            }
        }
        int version = OrtHost.shared().api().version();
        List<String> bound = ProbedSlots.bound();
        List<String> missing = new ArrayList<>();
        StringBuilder report = new StringBuilder();
        int probed = 0;
        int skipped = 0;
        for (String slot : bound) {
            FunctionSlot declared = ProbedSlots.slot(slot);
            String where = slot + " [" + declared.index() + ", API " + declared.since() + "]";
            if (probedBy.containsKey(slot)) {
                assertTrue(!NOT_PROBED.containsKey(slot), slot + " is probed; drop it from NOT_PROBED");
                if (declared.since() > version) {
                    skipped++;
                    report.append("  skipped   ").append(where).append(": newer than this runtime's API ").append(version)
                            .append('\n');
                } else {
                    probed++;
                    report.append("  probed    ").append(where).append(" by ").append(String.join(", ", probedBy.get(slot)))
                            .append('\n');
                }
            } else if (NOT_PROBED.containsKey(slot)) {
                report.append("  NOT PROBED ").append(where).append(": ").append(NOT_PROBED.get(slot)).append('\n');
            } else {
                missing.add(slot);
            }
        }
        for (String slot : NOT_PROBED.keySet()) {
            assertTrue(bound.contains(slot), slot + " in NOT_PROBED is not a slot javaep binds");
        }
        System.out.println("ABI probes on ONNX Runtime " + OrtHost.shared().version() + " (API " + version + "): " + bound.size()
                + " bound slots, " + probed + " probed, " + skipped + " skipped (newer than the runtime), " + NOT_PROBED.size()
                + " not probed\n" + report + "Beyond the generated declaration (API 28):\n"
                + BEYOND_API_28.entrySet().stream().map(e -> "  " + e.getKey() + ": " + e.getValue() + "\n").reduce("", String::concat)
                + "What each probe rules out:\n"
                + rulesOut.entrySet().stream().map(e -> "  " + e.getKey() + ": " + e.getValue() + "\n").reduce("", String::concat));
        assertEquals(List.of(), missing, "bound slots with neither a probe nor a reason in NOT_PROBED");
        assertEquals(bound.size(), probed + skipped + NOT_PROBED.size());
    }
}
