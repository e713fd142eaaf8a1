package dev.javaep.ort;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BOOLEAN;
import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Typed calls into {@code OrtApi}, the functions both the EP side and the host side use. Each
 * method is one C call; a returned {@code OrtStatus} becomes an {@link OrtException} (through
 * {@link #check}, the one status funnel). Pointers to ORT objects stay {@link MemorySegment}s.
 */
public final class OrtApi {

    /** The API version javaep's struct layouts are written for. */
    public static final int COMPILED_API_VERSION = 29;
    /** The oldest runtime API javaep negotiates down to (ORT 1.24: the interop API and handle structs). */
    public static final int MINIMUM_API_VERSION = 24;

    private final FunctionTable table;

    public OrtApi(MemorySegment apiTable, int version) {
        this.table = new FunctionTable("OrtApi", apiTable, version, OrtApiSlot.tableLength());
    }

    public int version() {
        return table.version();
    }

    public MemorySegment address() {
        return table.address();
    }

    public FunctionTable table() {
        return table;
    }

    /** Whether the runtime has this function. */
    public boolean has(OrtApiSlot slot) {
        return table.has(slot);
    }

    /** Rethrows what a MethodHandle invocation threw: unchecked as is, checked wrapped. */
    public static RuntimeException rethrow(Throwable t) {
        if (t instanceof RuntimeException r) {
            return r;
        }
        if (t instanceof Error e) {
            throw e;
        }
        return new IllegalStateException(t);
    }

    // ---- status -------------------------------------------------------------------------------

    public MemorySegment createStatus(OrtErrorCode code, String message) {
        try (Arena arena = Arena.ofConfined()) {
            return (MemorySegment) table.handle(OrtApiSlot.CreateStatus).invokeExact(code.value(), arena.allocateFrom(message));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Throws the {@link OrtException} a non-NULL status describes, releasing the status. */
    public void check(MemorySegment status) {
        if (status.equals(MemorySegment.NULL)) {
            return;
        }
        throw toException(status);
    }

    /** Reads and releases a non-NULL status. */
    public OrtException toException(MemorySegment status) {
        OrtException failure = new OrtException(statusCode(status), statusMessage(status));
        releaseStatus(status);
        return failure;
    }

    /** The code of a non-NULL status, which stays the caller's (a layer passing it on reads it without releasing). */
    public OrtErrorCode statusCode(MemorySegment status) {
        return OrtErrorCode.of(table.callInt(OrtApiSlot.GetErrorCode, status));
    }

    /** The message of a non-NULL status, which stays the caller's; null where the status has none. */
    public String statusMessage(MemorySegment status) {
        return cString(table.call(OrtApiSlot.GetErrorMessage, status));
    }

    public void releaseStatus(MemorySegment status) {
        table.callVoid(OrtApiSlot.ReleaseStatus, status);
    }

    // ---- strings --------------------------------------------------------------------------------

    /** A NUL-terminated UTF-8 string ORT owns, copied into Java; {@code null} for NULL. */
    public static String cString(MemorySegment pointer) {
        if (pointer.equals(MemorySegment.NULL)) {
            return null;
        }
        return pointer.reinterpret(Long.MAX_VALUE).getString(0, StandardCharsets.UTF_8);
    }

    // ---- logging --------------------------------------------------------------------------------

    /** Writes through {@code Logger_LogMessage}; a refusal is an {@link OrtException} (javaep's log then falls back). */
    public void logMessage(MemorySegment logger, int severity, String message) {
        try (Arena arena = Arena.ofConfined()) {
            check((MemorySegment) table.handle(OrtApiSlot.Logger_LogMessage).invokeExact(
                    logger, severity, arena.allocateFrom(message), Platform.ortCharString(arena, "javaep"), 0,
                    arena.allocateFrom("javaep")));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- key-value pairs ------------------------------------------------------------------------

    /** Copies an {@code OrtKeyValuePairs} into an ordered map; NULL gives an empty map. */
    public Map<String, String> keyValuePairs(MemorySegment kvps) {
        Map<String, String> result = new LinkedHashMap<>();
        if (kvps.equals(MemorySegment.NULL)) {
            return result;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment keys = arena.allocate(ADDRESS);
            MemorySegment values = arena.allocate(ADDRESS);
            MemorySegment count = arena.allocate(JAVA_LONG);
            try {
                table.handle(OrtApiSlot.GetKeyValuePairs).invokeExact(kvps, keys, values, count);
            } catch (Throwable t) {
                throw rethrow(t);
            }
            long n = count.get(JAVA_LONG, 0);
            MemorySegment keyArray = keys.get(ADDRESS, 0).reinterpret(n * ADDRESS.byteSize());
            MemorySegment valueArray = values.get(ADDRESS, 0).reinterpret(n * ADDRESS.byteSize());
            for (long i = 0; i < n; i++) {
                result.put(cString(keyArray.getAtIndex(ADDRESS, i)), cString(valueArray.getAtIndex(ADDRESS, i)));
            }
            return result;
        }
    }

    /** A new {@code OrtKeyValuePairs} holding {@code entries}; release with {@link #releaseKeyValuePairs}. */
    public MemorySegment createKeyValuePairs(Map<String, String> entries) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            table.callVoid(OrtApiSlot.CreateKeyValuePairs, out);
            MemorySegment kvps = out.get(ADDRESS, 0);
            for (var entry : entries.entrySet()) {
                table.handle(OrtApiSlot.AddKeyValuePair).invokeExact(kvps,
                        arena.allocateFrom(entry.getKey()), arena.allocateFrom(entry.getValue()));
            }
            return kvps;
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void releaseKeyValuePairs(MemorySegment kvps) {
        table.callVoid(OrtApiSlot.ReleaseKeyValuePairs, kvps);
    }

    // ---- hardware devices -----------------------------------------------------------------------

    public int hardwareDeviceType(MemorySegment device) {
        return table.callInt(OrtApiSlot.HardwareDevice_Type, device);
    }

    public int hardwareDeviceVendorId(MemorySegment device) {
        return table.callInt(OrtApiSlot.HardwareDevice_VendorId, device);
    }

    public int hardwareDeviceId(MemorySegment device) {
        return table.callInt(OrtApiSlot.HardwareDevice_DeviceId, device);
    }

    public String hardwareDeviceVendor(MemorySegment device) {
        return cString(table.call(OrtApiSlot.HardwareDevice_Vendor, device));
    }

    public Map<String, String> hardwareDeviceMetadata(MemorySegment device) {
        return keyValuePairs(table.call(OrtApiSlot.HardwareDevice_Metadata, device));
    }

    // ---- session options (EP side reads them in CreateEp) ---------------------------------------

    /** The session's config entries ({@code GetSessionOptionsConfigEntries}). */
    public Map<String, String> sessionConfigEntries(MemorySegment sessionOptions) {
        MemorySegment kvps = pointerOut(OrtApiSlot.GetSessionOptionsConfigEntries, sessionOptions);
        try {
            return keyValuePairs(kvps);
        } finally {
            releaseKeyValuePairs(kvps);
        }
    }

    /**
     * A config key whose NUL-terminated copy is made once, in the global arena: a lookup with a constant key per Run
     * ({@link #runConfigEntry}) then allocates nothing for the key.
     */
    public record ConfigKey(String name, MemorySegment cName) {
        public static ConfigKey of(String name) {
            return new ConfigKey(name, Arena.global().allocateFrom(name));
        }
    }

    /** One of a Run's config entries ({@code GetRunConfigEntry}); null when the options lack it or are NULL. */
    public String runConfigEntry(MemorySegment runOptions, ConfigKey key) {
        if (runOptions.equals(MemorySegment.NULL)) {
            return null;
        }
        try {
            return cString((MemorySegment) table.handle(OrtApiSlot.GetRunConfigEntry).invokeExact(runOptions, key.cName()));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- graph ----------------------------------------------------------------------------------

    public String graphName(MemorySegment graph) {
        return stringOut(OrtApiSlot.Graph_GetName, graph);
    }

    public List<MemorySegment> graphNodes(MemorySegment graph) {
        return pointerArray(OrtApiSlot.Graph_GetNumNodes, OrtApiSlot.Graph_GetNodes, graph);
    }

    public List<MemorySegment> graphInputs(MemorySegment graph) {
        return pointerArray(OrtApiSlot.Graph_GetNumInputs, OrtApiSlot.Graph_GetInputs, graph);
    }

    public List<MemorySegment> graphOutputs(MemorySegment graph) {
        return pointerArray(OrtApiSlot.Graph_GetNumOutputs, OrtApiSlot.Graph_GetOutputs, graph);
    }

    /** The graph's initializers (value infos owned by the graph). */
    public List<MemorySegment> graphInitializers(MemorySegment graph) {
        return pointerArray(OrtApiSlot.Graph_GetNumInitializers, OrtApiSlot.Graph_GetInitializers, graph);
    }

    /** The If/Loop/Scan node a subgraph belongs to, or NULL for the main graph. */
    public MemorySegment graphParentNode(MemorySegment graph) {
        return pointerOut(OrtApiSlot.Graph_GetParentNode, graph);
    }

    /** The opset version the model imports per domain ({@code ""} is the ONNX domain). */
    public Map<String, Long> graphOperatorSets(MemorySegment graph) {
        try (Arena arena = Arena.ofConfined()) {
            long n = sizeOut(OrtApiSlot.Graph_GetNumOperatorSets, graph);
            Map<String, Long> result = new LinkedHashMap<>();
            if (n == 0) {
                return result;
            }
            MemorySegment domains = arena.allocate(ADDRESS, n);
            MemorySegment versions = arena.allocate(JAVA_LONG, n);
            try {
                check((MemorySegment) table.handle(OrtApiSlot.Graph_GetOperatorSets).invokeExact(graph, domains, versions, n));
            } catch (Throwable t) {
                throw rethrow(t);
            }
            for (long i = 0; i < n; i++) {
                String domain = cString(domains.getAtIndex(ADDRESS, i));
                result.put(domain == null || domain.equals("ai.onnx") ? "" : domain, versions.getAtIndex(JAVA_LONG, i));
            }
            return result;
        }
    }

    public String nodeName(MemorySegment node) {
        return stringOut(OrtApiSlot.Node_GetName, node);
    }

    public String nodeOperatorType(MemorySegment node) {
        return stringOut(OrtApiSlot.Node_GetOperatorType, node);
    }

    public String nodeDomain(MemorySegment node) {
        return stringOut(OrtApiSlot.Node_GetDomain, node);
    }

    public int nodeSinceVersion(MemorySegment node) {
        return intOut(OrtApiSlot.Node_GetSinceVersion, node);
    }

    /** The node's inputs; an omitted optional input is {@link MemorySegment#NULL}. */
    public List<MemorySegment> nodeInputs(MemorySegment node) {
        return pointerArray(OrtApiSlot.Node_GetNumInputs, OrtApiSlot.Node_GetInputs, node);
    }

    public List<MemorySegment> nodeOutputs(MemorySegment node) {
        return pointerArray(OrtApiSlot.Node_GetNumOutputs, OrtApiSlot.Node_GetOutputs, node);
    }

    /** Outer-scope values the node's subgraphs read (If/Loop/Scan); empty for other nodes. */
    public List<MemorySegment> nodeImplicitInputs(MemorySegment node) {
        return pointerArray(OrtApiSlot.Node_GetNumImplicitInputs, OrtApiSlot.Node_GetImplicitInputs, node);
    }

    /** The EP ORT assigned the node to; {@code ""} when unassigned (NULL or empty from ORT). */
    public String nodeEpName(MemorySegment node) {
        String name = stringOut(OrtApiSlot.Node_GetEpName, node);
        return name == null ? "" : name;
    }

    /** A node's subgraphs ({@code OrtGraph*} owned by the node) by the attribute that holds them. */
    public Map<String, MemorySegment> nodeSubgraphs(MemorySegment node) {
        try (Arena arena = Arena.ofConfined()) {
            long n = sizeOut(OrtApiSlot.Node_GetNumSubgraphs, node);
            Map<String, MemorySegment> result = new LinkedHashMap<>();
            if (n == 0) {
                return result;
            }
            MemorySegment graphs = arena.allocate(ADDRESS, n);
            MemorySegment names = arena.allocate(ADDRESS, n);
            try {
                check((MemorySegment) table.handle(OrtApiSlot.Node_GetSubgraphs).invokeExact(node, graphs, n, names));
            } catch (Throwable t) {
                throw rethrow(t);
            }
            for (long i = 0; i < n; i++) {
                result.put(cString(names.getAtIndex(ADDRESS, i)), graphs.getAtIndex(ADDRESS, i));
            }
            return result;
        }
    }

    /** A TENSOR attribute as a new {@code OrtValue} the caller releases ({@link #releaseValue}). */
    public MemorySegment tensorAttribute(MemorySegment attribute) {
        return pointerOut(OrtApiSlot.OpAttr_GetTensorAttributeAsOrtValue, attribute);
    }

    /** Whether a value info is a constant initializer. */
    public boolean valueInfoIsConstantInitializer(MemorySegment valueInfo) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_BOOLEAN);
            check(table.call(OrtApiSlot.ValueInfo_IsConstantInitializer, valueInfo, out));
            return out.get(JAVA_BOOLEAN, 0);
        }
    }

    /** An initializer's {@code OrtValue} (owned by the graph; ORT loads external data on this call), or NULL. */
    public MemorySegment valueInfoInitializerValue(MemorySegment valueInfo) {
        return pointerOut(OrtApiSlot.ValueInfo_GetInitializerValue, valueInfo);
    }

    public List<MemorySegment> nodeAttributes(MemorySegment node) {
        return pointerArray(OrtApiSlot.Node_GetNumAttributes, OrtApiSlot.Node_GetAttributes, node);
    }

    public String attributeName(MemorySegment attribute) {
        return stringOut(OrtApiSlot.OpAttr_GetName, attribute);
    }

    public int attributeType(MemorySegment attribute) {
        return intOut(OrtApiSlot.OpAttr_GetType, attribute);
    }

    /**
     * Reads an attribute's value bytes with {@code ReadOpAttr} (size query first). INT is an int64,
     * FLOAT a float, INTS/FLOATS packed arrays, STRING NUL-terminated.
     */
    public MemorySegment readAttribute(MemorySegment attribute, int ortAttributeType, Arena arena) {
        try {
            MemorySegment size = arena.allocate(JAVA_LONG);
            MemorySegment probe = (MemorySegment) table.handle(OrtApiSlot.ReadOpAttr)
                    .invokeExact(attribute, ortAttributeType, MemorySegment.NULL, 0L, size);
            if (!probe.equals(MemorySegment.NULL)) {
                releaseStatus(probe); // the size query "fails" by design; the size is written anyway
            }
            long bytes = Math.max(size.get(JAVA_LONG, 0), 8);
            MemorySegment data = arena.allocate(bytes, 8);
            check((MemorySegment) table.handle(OrtApiSlot.ReadOpAttr)
                    .invokeExact(attribute, ortAttributeType, data, bytes, size));
            return data.asSlice(0, size.get(JAVA_LONG, 0));
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public String valueInfoName(MemorySegment valueInfo) {
        return stringOut(OrtApiSlot.GetValueInfoName, valueInfo);
    }

    /** The value's type info, owned by the value info (never release it). */
    public MemorySegment valueInfoTypeInfo(MemorySegment valueInfo) {
        return pointerOut(OrtApiSlot.GetValueInfoTypeInfo, valueInfo);
    }

    /** {@code ONNXType} of a type info (TENSOR = 1). */
    public int onnxType(MemorySegment typeInfo) {
        return intOut(OrtApiSlot.GetOnnxTypeFromTypeInfo, typeInfo);
    }

    /** The tensor view of a type info (owned by it, never release), or NULL if it is not a tensor. */
    public MemorySegment castToTensorInfo(MemorySegment typeInfo) {
        return pointerOut(OrtApiSlot.CastTypeInfoToTensorInfo, typeInfo);
    }

    // ---- tensor type and shape ------------------------------------------------------------------

    public int tensorElementType(MemorySegment tensorInfo) {
        return intOut(OrtApiSlot.GetTensorElementType, tensorInfo);
    }

    /** Whether the shape (rank) is known; always true on runtimes without {@code TensorTypeAndShape_HasShape}. */
    public boolean tensorHasShape(MemorySegment tensorInfo) {
        if (!table.has(OrtApiSlot.TensorTypeAndShape_HasShape)) {
            return true;
        }
        try {
            return (boolean) table.handle(OrtApiSlot.TensorTypeAndShape_HasShape).invokeExact(tensorInfo);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** Dimensions, -1 for dynamic ones. */
    public long[] tensorDimensions(MemorySegment tensorInfo) {
        long rank = sizeOut(OrtApiSlot.GetDimensionsCount, tensorInfo);
        if (rank == 0) {
            return new long[0];
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dims = arena.allocate(JAVA_LONG, rank);
            check(table.call(OrtApiSlot.GetDimensions, tensorInfo, dims, rank));
            return dims.toArray(JAVA_LONG);
        }
    }

    /** A new type-and-shape info of a tensor value; release with {@link #releaseTensorTypeAndShapeInfo}. */
    public MemorySegment tensorTypeAndShape(MemorySegment value) {
        return pointerOut(OrtApiSlot.GetTensorTypeAndShape, value);
    }

    public void releaseTensorTypeAndShapeInfo(MemorySegment info) {
        table.callVoid(OrtApiSlot.ReleaseTensorTypeAndShapeInfo, info);
    }

    /** The data pointer of a tensor value (a zero-length segment at that address). */
    public MemorySegment tensorMutableData(MemorySegment value) {
        MemorySegment out = CallScratch.get();
        check(table.call(OrtApiSlot.GetTensorMutableData, value, out));
        return out.get(ADDRESS, 0);
    }

    /** {@code OrtMemoryInfo} of a tensor value (owned by the value). */
    public MemorySegment tensorMemoryInfo(MemorySegment value) {
        return pointerOut(OrtApiSlot.GetTensorMemoryInfo, value);
    }

    // ---- kernel context -------------------------------------------------------------------------

    public long kernelContextInputCount(MemorySegment context) {
        return sizeOut(OrtApiSlot.KernelContext_GetInputCount, context);
    }

    public long kernelContextOutputCount(MemorySegment context) {
        return sizeOut(OrtApiSlot.KernelContext_GetOutputCount, context);
    }

    /** Input value {@code index}, NULL for an omitted optional input. Owned by the context. */
    public MemorySegment kernelContextInput(MemorySegment context, long index) {
        MemorySegment out = CallScratch.get();
        check(table.call(OrtApiSlot.KernelContext_GetInput, context, index, out));
        return out.get(ADDRESS, 0);
    }

    /**
     * The native stream ORT runs this node on ({@code KernelContext_GetGPUComputeStream}): the
     * handle of the EP's own {@code OrtSyncStreamImpl}, or 0 when the session has no stream.
     */
    public long kernelContextComputeStream(MemorySegment context) {
        MemorySegment out = CallScratch.get();
        out.set(ADDRESS, 0, MemorySegment.NULL);
        check(table.call(OrtApiSlot.KernelContext_GetGPUComputeStream, context, out));
        return out.get(ADDRESS, 0).address();
    }

    /** A tensor's element type and shape in one call (API 24), without creating a type-and-shape info. */
    public TensorShape tensorShape(MemorySegment value) {
        MemorySegment out = CallScratch.get();
        check(table.call(OrtApiSlot.GetTensorElementTypeAndShapeDataReference, value, out, out.asSlice(8), out.asSlice(16)));
        int elementType = out.get(JAVA_INT, 0);
        long rank = out.get(JAVA_LONG, 16);
        long[] dims = rank == 0 ? new long[0]
                : out.get(ADDRESS, 8).reinterpret(rank * JAVA_LONG.byteSize()).toArray(JAVA_LONG);
        return new TensorShape(elementType, dims);
    }

    /** An ONNX element type value and dimensions. */
    public record TensorShape(int elementType, long[] dims) {}

    /** {@code SyncStream_GetHandle}: the native stream behind an {@code OrtSyncStream}, 0 for NULL. */
    public long syncStreamHandle(MemorySegment stream) {
        if (stream.equals(MemorySegment.NULL)) {
            return 0L;
        }
        return table.call(OrtApiSlot.SyncStream_GetHandle, stream).address();
    }

    /** {@code GetTensorSizeInBytes} (API 23). */
    public long tensorSizeInBytes(MemorySegment value) {
        return sizeOut(OrtApiSlot.GetTensorSizeInBytes, value);
    }

    /** Output value {@code index} with this shape, allocated by ORT and owned by the context. */
    public MemorySegment kernelContextOutput(MemorySegment context, long index, long[] shape) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dims = shape.length == 0 ? arena.allocate(JAVA_LONG) : arena.allocateFrom(JAVA_LONG, shape);
            MemorySegment out = arena.allocate(ADDRESS);
            check((MemorySegment) table.handle(OrtApiSlot.KernelContext_GetOutput)
                    .invokeExact(context, index, dims, (long) shape.length, out));
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    // ---- memory info ----------------------------------------------------------------------------

    /** {@code CreateMemoryInfo_V2}; release with {@link #releaseMemoryInfo}. */
    public MemorySegment createMemoryInfoV2(String name, int deviceType, int vendorId, int deviceId, int memoryType,
                                            long alignment, int allocatorType) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((MemorySegment) table.handle(OrtApiSlot.CreateMemoryInfo_V2).invokeExact(arena.allocateFrom(name),
                    deviceType, vendorId, deviceId, memoryType, alignment, allocatorType, out));
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    /** {@code CreateCpuMemoryInfo(allocatorType, memType)}; release with {@link #releaseMemoryInfo}. */
    public MemorySegment createCpuMemoryInfo(int allocatorType, int memType) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check((MemorySegment) table.handle(OrtApiSlot.CreateCpuMemoryInfo).invokeExact(allocatorType, memType, out));
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void releaseMemoryInfo(MemorySegment memoryInfo) {
        table.callVoid(OrtApiSlot.ReleaseMemoryInfo, memoryInfo);
    }

    public String memoryInfoName(MemorySegment memoryInfo) {
        return stringOut(OrtApiSlot.MemoryInfoGetName, memoryInfo);
    }

    // ---- values ---------------------------------------------------------------------------------

    /** A tensor over caller-owned memory ({@code CreateTensorWithDataAsOrtValue}); release with {@link #releaseValue}. */
    public MemorySegment createTensorWithData(MemorySegment memoryInfo, MemorySegment data, long byteSize, long[] shape,
                                              int elementType) {
        return tensorOver(OrtApiSlot.CreateTensorWithDataAsOrtValue, memoryInfo, data, byteSize, shape, elementType);
    }

    /**
     * A tensor over caller-owned memory whose release calls {@code deleter->Free(data)}
     * ({@code CreateTensorWithDataAndDeleterAsOrtValue}); the tensor's memory info is {@code deleter->Info}.
     */
    public MemorySegment createTensorWithDataAndDeleter(MemorySegment deleter, MemorySegment data, long byteSize,
                                                        long[] shape, int elementType) {
        return tensorOver(OrtApiSlot.CreateTensorWithDataAndDeleterAsOrtValue, deleter, data, byteSize, shape, elementType);
    }

    /** {@code (memory info or deleter, data, byte size, dims, rank, element type, OrtValue** out)}: a tensor over {@code data}. */
    private MemorySegment tensorOver(OrtApiSlot slot, MemorySegment memory, MemorySegment data, long byteSize, long[] shape,
                                     int elementType) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment dims = shape.length == 0 ? arena.allocate(JAVA_LONG) : arena.allocateFrom(JAVA_LONG, shape);
            MemorySegment out = arena.allocate(ADDRESS);
            check((MemorySegment) table.handle(slot).invokeExact(memory, data, byteSize, dims, (long) shape.length,
                    elementType, out));
            return out.get(ADDRESS, 0);
        } catch (Throwable t) {
            throw rethrow(t);
        }
    }

    public void releaseValue(MemorySegment value) {
        table.callVoid(OrtApiSlot.ReleaseValue, value);
    }

    // ---- helpers --------------------------------------------------------------------------------

    // The {@code OrtStatus* F(object, T* out)} pattern, one per out type.

    private String stringOut(OrtApiSlot slot, MemorySegment object) {
        return cString(pointerOut(slot, object));
    }

    private MemorySegment pointerOut(OrtApiSlot slot, MemorySegment object) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check(table.call(slot, object, out));
            return out.get(ADDRESS, 0);
        }
    }

    private long sizeOut(OrtApiSlot slot, MemorySegment object) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            check(table.call(slot, object, out));
            return out.get(JAVA_LONG, 0);
        }
    }

    private int intOut(OrtApiSlot slot, MemorySegment object) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_INT);
            check(table.call(slot, object, out));
            return out.get(JAVA_INT, 0);
        }
    }

    /** The {@code X_GetNumY} / {@code X_GetY(object, array, n)} pattern: a caller-allocated array of borrowed pointers. */
    private List<MemorySegment> pointerArray(OrtApiSlot countSlot, OrtApiSlot arraySlot, MemorySegment object) {
        long n = sizeOut(countSlot, object);
        List<MemorySegment> result = new ArrayList<>((int) n);
        if (n == 0) {
            return result;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment array = arena.allocate(ADDRESS, n);
            check(table.call(arraySlot, object, array, n));
            for (long i = 0; i < n; i++) {
                result.add(array.getAtIndex(ADDRESS, i));
            }
            return result;
        }
    }

    // ---- kernel info (per-op kernels, at kernel creation) ----------------------------------------

    /** The node's name ({@code KernelInfo_GetNodeName}). */
    public String kernelInfoNodeName(MemorySegment info) {
        return sizedString(OrtApiSlot.KernelInfo_GetNodeName, info);
    }

    /** The node's op type ({@code KernelInfo_GetOperatorType}, API 24). */
    public String kernelInfoOperatorType(MemorySegment info) {
        return sizedString(OrtApiSlot.KernelInfo_GetOperatorType, info);
    }

    /** The node's domain, {@code ""} for ONNX ({@code KernelInfo_GetOperatorDomain}, API 24). */
    public String kernelInfoOperatorDomain(MemorySegment info) {
        return sizedString(OrtApiSlot.KernelInfo_GetOperatorDomain, info);
    }

    /** The opset version that defined the node's op ({@code KernelInfo_GetOperatorSinceVersion}, API 24). */
    public int kernelInfoOperatorSinceVersion(MemorySegment info) {
        return intOut(OrtApiSlot.KernelInfo_GetOperatorSinceVersion, info);
    }

    public long kernelInfoInputCount(MemorySegment info) {
        return sizeOut(OrtApiSlot.KernelInfo_GetInputCount, info);
    }

    public long kernelInfoOutputCount(MemorySegment info) {
        return sizeOut(OrtApiSlot.KernelInfo_GetOutputCount, info);
    }

    /** A new type info of input {@code index}; release with {@link #releaseTypeInfo}. */
    public MemorySegment kernelInfoInputTypeInfo(MemorySegment info, long index) {
        return indexedPointerOut(OrtApiSlot.KernelInfo_GetInputTypeInfo, info, index);
    }

    /** A new type info of output {@code index}; release with {@link #releaseTypeInfo}. */
    public MemorySegment kernelInfoOutputTypeInfo(MemorySegment info, long index) {
        return indexedPointerOut(OrtApiSlot.KernelInfo_GetOutputTypeInfo, info, index);
    }

    public void releaseTypeInfo(MemorySegment typeInfo) {
        table.callVoid(OrtApiSlot.ReleaseTypeInfo, typeInfo);
    }

    /** An INT attribute of the kernel's node; empty when the node does not set it. */
    public OptionalLong kernelInfoAttributeInt64(MemorySegment info, String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_LONG);
            MemorySegment status = table.call(OrtApiSlot.KernelInfoGetAttribute_int64, info, arena.allocateFrom(name), out);
            return attributePresent(status) ? OptionalLong.of(out.get(JAVA_LONG, 0)) : OptionalLong.empty();
        }
    }

    /** A FLOAT attribute of the kernel's node; empty when the node does not set it. */
    public Optional<Float> kernelInfoAttributeFloat(MemorySegment info, String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(JAVA_FLOAT);
            MemorySegment status = table.call(OrtApiSlot.KernelInfoGetAttribute_float, info, arena.allocateFrom(name), out);
            return attributePresent(status) ? Optional.of(out.get(JAVA_FLOAT, 0)) : Optional.empty();
        }
    }

    /** A STRING attribute of the kernel's node (UTF-8); empty when the node does not set it. */
    public Optional<String> kernelInfoAttributeString(MemorySegment info, String name) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment cName = arena.allocateFrom(name);
            MemorySegment size = arena.allocate(JAVA_LONG);
            MemorySegment probe = table.call(OrtApiSlot.KernelInfoGetAttribute_string, info, cName, MemorySegment.NULL, size);
            if (!attributePresent(probe)) {
                return Optional.empty();
            }
            MemorySegment text = arena.allocate(Math.max(1, size.get(JAVA_LONG, 0)));
            check(table.call(OrtApiSlot.KernelInfoGetAttribute_string, info, cName, text, size));
            return Optional.of(text.getString(0, StandardCharsets.UTF_8));
        }
    }

    /** An INTS attribute of the kernel's node; empty when the node does not set it. */
    public Optional<long[]> kernelInfoAttributeInt64s(MemorySegment info, String name) {
        try (Arena arena = Arena.ofConfined()) {
            return attributeArray(OrtApiSlot.KernelInfoGetAttributeArray_int64, info, name, JAVA_LONG, arena)
                    .map(values -> values.toArray(JAVA_LONG));
        }
    }

    /** A FLOATS attribute of the kernel's node; empty when the node does not set it. */
    public Optional<float[]> kernelInfoAttributeFloats(MemorySegment info, String name) {
        try (Arena arena = Arena.ofConfined()) {
            return attributeArray(OrtApiSlot.KernelInfoGetAttributeArray_float, info, name, JAVA_FLOAT, arena)
                    .map(values -> values.toArray(JAVA_FLOAT));
        }
    }

    /** The {@code (info, name, T* out, size_t* size)} array pattern: a size query, then the copy. */
    private Optional<MemorySegment> attributeArray(OrtApiSlot slot, MemorySegment info, String name,
                                                   ValueLayout element, Arena arena) {
        MemorySegment cName = arena.allocateFrom(name);
        MemorySegment size = arena.allocate(JAVA_LONG);
        MemorySegment probe = table.call(slot, info, cName, MemorySegment.NULL, size);
        if (!attributePresent(probe)) {
            return Optional.empty();
        }
        long n = size.get(JAVA_LONG, 0);
        if (n == 0) {
            return Optional.of(MemorySegment.NULL);
        }
        MemorySegment values = arena.allocate(element, n);
        check(table.call(slot, info, cName, values, size));
        return Optional.of(values.asSlice(0, size.get(JAVA_LONG, 0) * element.byteSize()));
    }

    /**
     * Whether a kernel-info attribute read found the attribute: true for OK, false for ORT's "No attribute
     * with ..." failure (how {@code OpKernelInfo::GetAttr} and {@code GetAttrs} report an attribute the node
     * leaves out, the case ORT's own {@code GetAttrOrDefault} turns into the default), an exception for any
     * other failure, e.g. an attribute of another type.
     */
    private boolean attributePresent(MemorySegment status) {
        if (status.equals(MemorySegment.NULL)) {
            return true;
        }
        OrtException failure = toException(status);
        if (failure.code() == OrtErrorCode.FAIL && failure.getMessage() != null
                && failure.getMessage().startsWith("No attribute with ")) {
            return false;
        }
        throw failure;
    }

    /** The {@code (object, char* out, size_t* size)} string pattern: a size query, then the copy. */
    private String sizedString(OrtApiSlot slot, MemorySegment object) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment size = arena.allocate(JAVA_LONG);
            check(table.call(slot, object, MemorySegment.NULL, size));
            MemorySegment text = arena.allocate(Math.max(1, size.get(JAVA_LONG, 0)));
            check(table.call(slot, object, text, size));
            return text.getString(0, StandardCharsets.UTF_8);
        }
    }

    private MemorySegment indexedPointerOut(OrtApiSlot slot, MemorySegment object, long index) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment out = arena.allocate(ADDRESS);
            check(table.call(slot, object, index, out));
            return out.get(ADDRESS, 0);
        }
    }
}
