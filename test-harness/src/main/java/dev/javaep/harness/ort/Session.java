package dev.javaep.harness.ort;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** An {@code OrtSession}. */
public final class Session implements AutoCloseable {
    // OrtAllocatorType / OrtMemType for CreateCpuMemoryInfo
    private static final int DEVICE_ALLOCATOR = 0;
    private static final int MEM_TYPE_DEFAULT = 0;

    private final OrtApi api;
    private MemorySegment session;
    private final List<String> inputNames;
    private final List<String> outputNames;

    Session(OrtApi api, MemorySegment session) {
        this.api = api;
        this.session = session;
        this.inputNames = names(OrtApiSlot.SessionGetInputCount, OrtApiSlot.SessionGetInputName);
        this.outputNames = names(OrtApiSlot.SessionGetOutputCount, OrtApiSlot.SessionGetOutputName);
    }

    public MemorySegment handle() {
        return session;
    }

    public List<String> inputNames() {
        return inputNames;
    }

    public List<String> outputNames() {
        return outputNames;
    }

    private List<String> names(OrtApiSlot countSlot, OrtApiSlot nameSlot) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment allocatorOut = arena.allocate(ADDRESS);
            api.check((MemorySegment) api.table().handle(OrtApiSlot.GetAllocatorWithDefaultOptions).invokeExact(allocatorOut));
            MemorySegment allocator = allocatorOut.get(ADDRESS, 0);
            MemorySegment countOut = arena.allocate(JAVA_LONG);
            api.check((MemorySegment) api.table().handle(countSlot).invokeExact(session, countOut));
            List<String> names = new ArrayList<>();
            for (long i = 0; i < countOut.get(JAVA_LONG, 0); i++) {
                MemorySegment nameOut = arena.allocate(ADDRESS);
                api.check((MemorySegment) api.table().handle(nameSlot).invokeExact(session, i, allocator, nameOut));
                MemorySegment name = nameOut.get(ADDRESS, 0);
                names.add(OrtApi.cString(name));
                api.check((MemorySegment) api.table().handle(OrtApiSlot.AllocatorFree).invokeExact(allocator, name));
            }
            return List.copyOf(names);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** Runs with host inputs (copied into native memory) and returns every output copied to the heap. */
    public Map<String, TensorData> run(Map<String, TensorData> inputs) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment memoryInfo = api.createCpuMemoryInfo(DEVICE_ALLOCATOR, MEM_TYPE_DEFAULT);
            List<MemorySegment> values = new ArrayList<>();
            MemorySegment outputValues = arena.allocate(ADDRESS, outputNames.size());
            try {
                MemorySegment inputNameArray = arena.allocate(ADDRESS, Math.max(1, inputs.size()));
                MemorySegment inputValueArray = arena.allocate(ADDRESS, Math.max(1, inputs.size()));
                int i = 0;
                for (var entry : inputs.entrySet()) {
                    TensorData tensor = entry.getValue();
                    MemorySegment data = arena.allocate(Math.max(1, tensor.data().length), 64);
                    MemorySegment.copy(tensor.data(), 0, data, JAVA_BYTE, 0, tensor.data().length);
                    MemorySegment value = api.createTensorWithData(memoryInfo, data, tensor.data().length, tensor.shape(),
                            tensor.elementType().onnxValue());
                    values.add(value);
                    inputNameArray.setAtIndex(ADDRESS, i, arena.allocateFrom(entry.getKey()));
                    inputValueArray.setAtIndex(ADDRESS, i, value);
                    i++;
                }
                MemorySegment outputNameArray = arena.allocate(ADDRESS, Math.max(1, outputNames.size()));
                for (int o = 0; o < outputNames.size(); o++) {
                    outputNameArray.setAtIndex(ADDRESS, o, arena.allocateFrom(outputNames.get(o)));
                }
                api.check((MemorySegment) api.table().handle(OrtApiSlot.Run).invokeExact(session, MemorySegment.NULL,
                        inputNameArray, inputValueArray, (long) inputs.size(), outputNameArray, (long) outputNames.size(),
                        outputValues));
                Map<String, TensorData> results = new LinkedHashMap<>();
                for (int o = 0; o < outputNames.size(); o++) {
                    results.put(outputNames.get(o), copyOut(outputValues.getAtIndex(ADDRESS, o)));
                }
                return results;
            } finally {
                for (MemorySegment value : values) {
                    api.releaseValue(value);
                }
                for (int o = 0; o < outputNames.size(); o++) {
                    MemorySegment value = outputValues.getAtIndex(ADDRESS, o);
                    if (!value.equals(MemorySegment.NULL)) {
                        api.releaseValue(value);
                    }
                }
                api.releaseMemoryInfo(memoryInfo);
            }
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    private TensorData copyOut(MemorySegment value) {
        MemorySegment info = api.tensorTypeAndShape(value);
        try {
            ElementType type = ElementType.fromOnnx(api.tensorElementType(info));
            long[] shape = api.tensorDimensions(info);
            long count = 1;
            for (long d : shape) {
                count *= d;
            }
            int bytes = Math.toIntExact(count * type.byteSize());
            MemorySegment data = api.tensorMutableData(value).reinterpret(bytes);
            return new TensorData(type, shape, data.toArray(JAVA_BYTE));
        } finally {
            api.releaseTensorTypeAndShapeInfo(info);
        }
    }

    @Override
    public void close() {
        if (session != null) {
            try {
                api.table().handle(OrtApiSlot.ReleaseSession).invokeExact(session);
            } catch (Throwable t) {
                throw OrtApi.rethrow(t);
            }
            session = null;
        }
    }
}
