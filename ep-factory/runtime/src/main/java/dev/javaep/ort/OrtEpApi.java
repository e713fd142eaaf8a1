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
        this.table = new FunctionTable("OrtEpApi", api.table().call(OrtApiSlot.GetEpApi), api.version(),
                OrtEpApiSlot.tableLength());
    }

    public FunctionTable table() {
        return table;
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
        table.callVoid(OrtEpApiSlot.ReleaseEpDevice, epDevice);
    }

    /** Registers a memory info with an EP device; ORT stores the pointer, so it must outlive the device. */
    public void addAllocatorInfo(MemorySegment epDevice, MemorySegment memoryInfo) {
        api.check(table.call(OrtEpApiSlot.EpDevice_AddAllocatorInfo, epDevice, memoryInfo));
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
        api.check(table.call(OrtEpApiSlot.EpGraphSupportInfo_AddSingleNode, graphSupportInfo, node));
    }

    /**
     * The {@code OrtKernelDef} ORT would use for {@code node} from this EP's kernel registry (API 24),
     * or NULL when the registry has none that matches (op, domain, opset, type constraints).
     */
    public MemorySegment lookUpKernel(MemorySegment graphSupportInfo, MemorySegment node) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            api.check(table.call(OrtEpApiSlot.EpGraphSupportInfo_LookUpKernel, graphSupportInfo, node, out));
            return out.get(ADDRESS, 0);
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
        table.callVoid(OrtEpApiSlot.ReleaseHardwareDevice, device);
    }

    /** What an {@code OrtMemoryDevice} says of itself: ORT's {@code OrtMemoryInfoDeviceType} and {@code OrtDeviceMemoryType} values, its ids. */
    public record MemoryDevice(int deviceType, int memoryType, int vendorId, int deviceId) {}

    /** {@code MemoryDevice_GetDeviceType}, {@code _GetMemoryType}, {@code _GetVendorId} and {@code _GetDeviceId}. */
    public MemoryDevice memoryDevice(MemorySegment memoryDevice) {
        return new MemoryDevice(table.callInt(OrtEpApiSlot.MemoryDevice_GetDeviceType, memoryDevice),
                table.callInt(OrtEpApiSlot.MemoryDevice_GetMemoryType, memoryDevice),
                table.callInt(OrtEpApiSlot.MemoryDevice_GetVendorId, memoryDevice),
                table.callInt(OrtEpApiSlot.MemoryDevice_GetDeviceId, memoryDevice));
    }

    /** The {@code OrtMemoryDevice} a tensor's data lives on (owned by the value). */
    public MemorySegment valueMemoryDevice(MemorySegment value) {
        return table.call(OrtEpApiSlot.Value_GetMemoryDevice, value);
    }

    /** The {@code OrtMemoryDevice} of a memory info (owned by the info). */
    public MemorySegment memoryInfoMemoryDevice(MemorySegment memoryInfo) {
        return table.call(OrtEpApiSlot.MemoryInfo_GetMemoryDevice, memoryInfo);
    }

    /** The EP implementation behind an {@code OrtSyncStream} (whichever EP created it). */
    public MemorySegment syncStreamImpl(MemorySegment stream) {
        return table.call(OrtEpApiSlot.SyncStream_GetImpl, stream);
    }

    // ---- kernel registry (API 24): per-op kernels ------------------------------------------------

    /** {@code CreateKernelRegistry}: an empty registry the EP owns; release with {@link #releaseKernelRegistry}. */
    public MemorySegment createKernelRegistry() {
        return created(OrtEpApiSlot.CreateKernelRegistry);
    }

    public void releaseKernelRegistry(MemorySegment registry) {
        table.callVoid(OrtEpApiSlot.ReleaseKernelRegistry, registry);
    }

    /**
     * {@code KernelRegistry_AddKernel}: ORT copies {@code kernelDef} (the caller still releases it) and keeps
     * {@code createFunction} and {@code state}, which must stay valid as long as any session uses the registry.
     */
    public void kernelRegistryAddKernel(MemorySegment registry, MemorySegment kernelDef, MemorySegment createFunction,
                                        MemorySegment state) {
        api.check(table.call(OrtEpApiSlot.KernelRegistry_AddKernel, registry, kernelDef, createFunction, state));
    }

    /** {@code CreateKernelDefBuilder}; release with {@link #releaseKernelDefBuilder}. */
    public MemorySegment createKernelDefBuilder() {
        return created(OrtEpApiSlot.CreateKernelDefBuilder);
    }

    /** {@code OrtStatus* Create...(T** out)}: the object ORT made, which the caller releases. */
    private MemorySegment created(OrtEpApiSlot slot) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            api.check(table.call(slot, out));
            return out.get(ADDRESS, 0);
        }
    }

    public void releaseKernelDefBuilder(MemorySegment builder) {
        table.callVoid(OrtEpApiSlot.ReleaseKernelDefBuilder, builder);
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
        builderMemType(OrtEpApiSlot.KernelDefBuilder_SetInputMemType, builder, inputIndex, memType);
    }

    public void kernelDefBuilderSetOutputMemType(MemorySegment builder, long outputIndex, OrtMemType memType) {
        builderMemType(OrtEpApiSlot.KernelDefBuilder_SetOutputMemType, builder, outputIndex, memType);
    }

    /** {@code (builder, size_t index, OrtMemType)}: where the kernel wants an input or output. */
    private void builderMemType(OrtEpApiSlot slot, MemorySegment builder, long index, OrtMemType memType) {
        try {
            api.check((MemorySegment) table.handle(slot).invokeExact(builder, index, memType.value()));
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
            api.check(table.call(OrtEpApiSlot.KernelDefBuilder_Build, builder, out));
            return out.get(ADDRESS, 0);
        }
    }

    public void releaseKernelDef(MemorySegment kernelDef) {
        table.callVoid(OrtEpApiSlot.ReleaseKernelDef, kernelDef);
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
            api.check(table.call(slot, builder, arena.allocateFrom(value)));
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
        table.callVoid(OrtEpApiSlot.ReleaseProfilingEvent, event);
    }

    /** {@code ProfilingEventsContainer_AddEvents}: ORT copies the events; the caller still releases them. */
    public void addProfilingEvents(MemorySegment container, List<MemorySegment> events) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment array = arena.allocate(ADDRESS, Math.max(1, events.size()));
            for (int i = 0; i < events.size(); i++) {
                array.setAtIndex(ADDRESS, i, events.get(i));
            }
            api.check(table.call(OrtEpApiSlot.ProfilingEventsContainer_AddEvents, container, array, events.size()));
        }
    }
}
