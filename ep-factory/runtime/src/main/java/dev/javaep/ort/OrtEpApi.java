package dev.javaep.ort;

import static java.lang.foreign.ValueLayout.ADDRESS;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.List;

/** Typed calls into {@code OrtEpApi}, the functions only an EP calls. Statuses go through {@link OrtApi#check}. */
public final class OrtEpApi {
    private final OrtApi api;
    private final FunctionTable table;

    public OrtEpApi(OrtApi api) {
        this.api = api;
        MemorySegment epApi;
        try {
            epApi = (MemorySegment) api.table().handle(OrtApiSlot.GetEpApi).invokeExact();
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
        this.table = new FunctionTable("OrtEpApi", epApi, api.version(), OrtEpApiSlot.tableLength());
    }

    public boolean has(OrtEpApiSlot slot) {
        return table.has(slot);
    }

    /** {@code CreateEpDevice}; ORT copies the key-value pairs and takes ownership of the device once returned from GetSupportedDevices. */
    public MemorySegment createEpDevice(MemorySegment factory, MemorySegment hardwareDevice, MemorySegment metadata,
                                        MemorySegment options) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            api.check((MemorySegment) table.handle(OrtEpApiSlot.CreateEpDevice)
                    .invokeExact(factory, hardwareDevice, metadata, options, out));
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public void releaseEpDevice(MemorySegment epDevice) {
        try {
            table.handle(OrtEpApiSlot.ReleaseEpDevice).invokeExact(epDevice);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** Registers a memory info with an EP device; ORT stores the pointer, so it must outlive the device. */
    public void addAllocatorInfo(MemorySegment epDevice, MemorySegment memoryInfo) {
        try {
            api.check((MemorySegment) table.handle(OrtEpApiSlot.EpDevice_AddAllocatorInfo).invokeExact(epDevice, memoryInfo));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** Claims {@code nodes} as one fused group (default fusion options: constant initializers stay inputs). */
    public void addNodesToFuse(MemorySegment graphSupportInfo, List<MemorySegment> nodes) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment array = arena.allocate(ADDRESS, nodes.size());
            for (int i = 0; i < nodes.size(); i++) {
                array.setAtIndex(ADDRESS, i, nodes.get(i));
            }
            api.check((MemorySegment) table.handle(OrtEpApiSlot.EpGraphSupportInfo_AddNodesToFuse)
                    .invokeExact(graphSupportInfo, array, (long) nodes.size(), MemorySegment.NULL));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** Claims one node for the EP's per-op kernel (ORT runs it through the EP's kernel registry). */
    public void addSingleNode(MemorySegment graphSupportInfo, MemorySegment node) {
        try {
            api.check((MemorySegment) table.handle(OrtEpApiSlot.EpGraphSupportInfo_AddSingleNode)
                    .invokeExact(graphSupportInfo, node));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /**
     * The {@code OrtKernelDef} ORT would use for {@code node} from this EP's kernel registry (API 24),
     * or NULL when the registry has none that matches (op, domain, opset, type constraints).
     */
    public MemorySegment lookUpKernel(MemorySegment graphSupportInfo, MemorySegment node) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            api.check((MemorySegment) table.handle(OrtEpApiSlot.EpGraphSupportInfo_LookUpKernel)
                    .invokeExact(graphSupportInfo, node, out));
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** {@code CreateHardwareDevice} (API 24): a device ORT's own discovery did not find. */
    public MemorySegment createHardwareDevice(int type, int vendorId, int deviceId, String vendorName,
                                              MemorySegment metadata) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            api.check((MemorySegment) table.handle(OrtEpApiSlot.CreateHardwareDevice)
                    .invokeExact(type, vendorId, deviceId, arena.allocateFrom(vendorName), metadata, out));
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public void releaseHardwareDevice(MemorySegment device) {
        try {
            table.handle(OrtEpApiSlot.ReleaseHardwareDevice).invokeExact(device);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public int memoryDeviceType(MemorySegment memoryDevice) {
        try {
            return (int) table.handle(OrtEpApiSlot.MemoryDevice_GetDeviceType).invokeExact(memoryDevice);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public int memoryDeviceMemoryType(MemorySegment memoryDevice) {
        try {
            return (int) table.handle(OrtEpApiSlot.MemoryDevice_GetMemoryType).invokeExact(memoryDevice);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public int memoryDeviceVendorId(MemorySegment memoryDevice) {
        try {
            return (int) table.handle(OrtEpApiSlot.MemoryDevice_GetVendorId).invokeExact(memoryDevice);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public int memoryDeviceId(MemorySegment memoryDevice) {
        try {
            return (int) table.handle(OrtEpApiSlot.MemoryDevice_GetDeviceId).invokeExact(memoryDevice);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** The {@code OrtMemoryDevice} a tensor's data lives on (owned by the value). */
    public MemorySegment valueMemoryDevice(MemorySegment value) {
        try {
            return (MemorySegment) table.handle(OrtEpApiSlot.Value_GetMemoryDevice).invokeExact(value);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** The {@code OrtMemoryDevice} of a memory info (owned by the info). */
    public MemorySegment memoryInfoMemoryDevice(MemorySegment memoryInfo) {
        try {
            return (MemorySegment) table.handle(OrtEpApiSlot.MemoryInfo_GetMemoryDevice).invokeExact(memoryInfo);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** The EP implementation behind an {@code OrtSyncStream} (whichever EP created it). */
    public MemorySegment syncStreamImpl(MemorySegment stream) {
        try {
            return (MemorySegment) table.handle(OrtEpApiSlot.SyncStream_GetImpl).invokeExact(stream);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    // ---- kernel registry (API 24): per-op kernels ------------------------------------------------

    /** {@code CreateKernelRegistry}: an empty registry the EP owns; release with {@link #releaseKernelRegistry}. */
    public MemorySegment createKernelRegistry() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            api.check((MemorySegment) table.handle(OrtEpApiSlot.CreateKernelRegistry).invokeExact(out));
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public void releaseKernelRegistry(MemorySegment registry) {
        try {
            table.handle(OrtEpApiSlot.ReleaseKernelRegistry).invokeExact(registry);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /**
     * {@code KernelRegistry_AddKernel}: ORT copies {@code kernelDef} (the caller still releases it) and keeps
     * {@code createFunction} and {@code state}, which must stay valid as long as any session uses the registry.
     */
    public void kernelRegistryAddKernel(MemorySegment registry, MemorySegment kernelDef, MemorySegment createFunction,
                                        MemorySegment state) {
        try {
            api.check((MemorySegment) table.handle(OrtEpApiSlot.KernelRegistry_AddKernel)
                    .invokeExact(registry, kernelDef, createFunction, state));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** {@code CreateKernelDefBuilder}; release with {@link #releaseKernelDefBuilder}. */
    public MemorySegment createKernelDefBuilder() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            api.check((MemorySegment) table.handle(OrtEpApiSlot.CreateKernelDefBuilder).invokeExact(out));
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public void releaseKernelDefBuilder(MemorySegment builder) {
        try {
            table.handle(OrtEpApiSlot.ReleaseKernelDefBuilder).invokeExact(builder);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public void kernelDefBuilderSetOperatorType(MemorySegment builder, String opType) {
        builderString(OrtEpApiSlot.KernelDefBuilder_SetOperatorType, builder, opType);
    }

    /** The op's domain; {@code ""} is the ONNX domain. */
    public void kernelDefBuilderSetDomain(MemorySegment builder, String domain) {
        builderString(OrtEpApiSlot.KernelDefBuilder_SetDomain, builder, domain);
    }

    /** The opset versions the kernel implements, both inclusive; {@link Integer#MAX_VALUE} as the end means no end. */
    public void kernelDefBuilderSetSinceVersion(MemorySegment builder, int start, int end) {
        try {
            api.check((MemorySegment) table.handle(OrtEpApiSlot.KernelDefBuilder_SetSinceVersion)
                    .invokeExact(builder, start, end));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** The EP the kernel belongs to: must be the name the EP's {@code OrtEp::GetName} returns. */
    public void kernelDefBuilderSetExecutionProvider(MemorySegment builder, String epName) {
        builderString(OrtEpApiSlot.KernelDefBuilder_SetExecutionProvider, builder, epName);
    }

    public void kernelDefBuilderSetInputMemType(MemorySegment builder, long inputIndex, OrtMemType memType) {
        try {
            api.check((MemorySegment) table.handle(OrtEpApiSlot.KernelDefBuilder_SetInputMemType)
                    .invokeExact(builder, inputIndex, memType.value()));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public void kernelDefBuilderSetOutputMemType(MemorySegment builder, long outputIndex, OrtMemType memType) {
        try {
            api.check((MemorySegment) table.handle(OrtEpApiSlot.KernelDefBuilder_SetOutputMemType)
                    .invokeExact(builder, outputIndex, memType.value()));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /**
     * Constrains the type parameter {@code argName} of the op schema (e.g. "T") to {@code types}, each an
     * {@code OrtDataType} from {@link #tensorDataType}.
     */
    public void kernelDefBuilderAddTypeConstraint(MemorySegment builder, String argName, List<MemorySegment> types) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment array = arena.allocate(ADDRESS, Math.max(1, types.size()));
            for (int i = 0; i < types.size(); i++) {
                array.setAtIndex(ADDRESS, i, types.get(i));
            }
            api.check((MemorySegment) table.handle(OrtEpApiSlot.KernelDefBuilder_AddTypeConstraint)
                    .invokeExact(builder, arena.allocateFrom(argName), array, (long) types.size()));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** {@code KernelDefBuilder_Build}: a new kernel definition; release with {@link #releaseKernelDef}. */
    public MemorySegment kernelDefBuilderBuild(MemorySegment builder) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            api.check((MemorySegment) table.handle(OrtEpApiSlot.KernelDefBuilder_Build).invokeExact(builder, out));
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public void releaseKernelDef(MemorySegment kernelDef) {
        try {
            table.handle(OrtEpApiSlot.ReleaseKernelDef).invokeExact(kernelDef);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /**
     * {@code GetTensorDataType}: ORT's {@code OrtDataType} for a tensor of this {@code ONNXTensorElementDataType}
     * value (a static object of ORT's, never released).
     */
    public MemorySegment tensorDataType(int onnxElementType) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            api.check((MemorySegment) table.handle(OrtEpApiSlot.GetTensorDataType).invokeExact(onnxElementType, out));
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    private void builderString(OrtEpApiSlot slot, MemorySegment builder, String value) {
        try (Arena arena = Arena.ofConfined()) {
            api.check((MemorySegment) table.handle(slot).invokeExact(builder, arena.allocateFrom(value)));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    // ---- EP profiler (API 25): javaep's events in ORT's profile -----------------------------------

    /** {@code OrtProfilingEventCategory_NODE} (onnxruntime_ep_c_api.h, API 25): node-level events, as ORT's own. */
    public static final int PROFILING_EVENT_CATEGORY_NODE = 1;

    /**
     * {@code CreateProfilingEvent}: an event for {@link #addProfilingEvents}; the caller releases it with
     * {@link #releaseProfilingEvent} once added (ORT copies it).
     *
     * @param timestampUs microseconds since ORT's profiling start
     * @param args        the event's "args" in ORT's JSON, in order
     */
    public MemorySegment createProfilingEvent(int category, int processId, int threadId, String name, long timestampUs,
                                              long durationUs, java.util.SequencedMap<String, String> args) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment keys = arena.allocate(ADDRESS, Math.max(1, args.size()));
            MemorySegment values = arena.allocate(ADDRESS, Math.max(1, args.size()));
            int i = 0;
            for (var arg : args.entrySet()) {
                keys.setAtIndex(ADDRESS, i, arena.allocateFrom(arg.getKey()));
                values.setAtIndex(ADDRESS, i, arena.allocateFrom(arg.getValue()));
                i++;
            }
            MemorySegment out = arena.allocate(ADDRESS);
            api.check((MemorySegment) table.handle(OrtEpApiSlot.CreateProfilingEvent).invokeExact(category, processId,
                    threadId, arena.allocateFrom(name), timestampUs, durationUs, keys, values, (long) args.size(), out));
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    public void releaseProfilingEvent(MemorySegment event) {
        try {
            table.handle(OrtEpApiSlot.ReleaseProfilingEvent).invokeExact(event);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** {@code ProfilingEventsContainer_AddEvents}: ORT copies the events; the caller still releases them. */
    public void addProfilingEvents(MemorySegment container, List<MemorySegment> events) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment array = arena.allocate(ADDRESS, Math.max(1, events.size()));
            for (int i = 0; i < events.size(); i++) {
                array.setAtIndex(ADDRESS, i, events.get(i));
            }
            api.check((MemorySegment) table.handle(OrtEpApiSlot.ProfilingEventsContainer_AddEvents)
                    .invokeExact(container, array, (long) events.size()));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }
}
