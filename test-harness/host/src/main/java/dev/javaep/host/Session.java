package dev.javaep.host;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_BYTE;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * An {@code OrtSession}. Owns the {@link IoBinding}s and {@link Allocator}s made from it: closing the
 * session closes those still open, newest first, before releasing the session.
 */
public final class Session implements AutoCloseable {
    // OrtAllocatorType / OrtMemType for CreateCpuMemoryInfo
    private static final int DEVICE_ALLOCATOR = 0;
    private static final int MEM_TYPE_DEFAULT = 0;

    private final OrtApi api;
    private MemorySegment session;
    private final List<String> inputNames;
    private final List<String> outputNames;
    private final Dependents dependents = new Dependents("the session");

    Session(OrtApi api, MemorySegment session) {
        this.api = api;
        this.session = session;
        this.inputNames = names(OrtApiSlot.SessionGetInputCount, OrtApiSlot.SessionGetInputName);
        this.outputNames = names(OrtApiSlot.SessionGetOutputCount, OrtApiSlot.SessionGetOutputName);
    }

    public MemorySegment handle() {
        return OrtCalls.live(session, "Session");
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
            api.check(api.table().call(OrtApiSlot.GetAllocatorWithDefaultOptions, allocatorOut));
            MemorySegment allocator = allocatorOut.get(ADDRESS, 0);
            MemorySegment countOut = arena.allocate(JAVA_LONG);
            api.check((MemorySegment) api.table().handle(countSlot).invokeExact(session, countOut));
            List<String> names = new ArrayList<>();
            for (long i = 0; i < countOut.get(JAVA_LONG, 0); i++) {
                MemorySegment nameOut = arena.allocate(ADDRESS);
                api.check((MemorySegment) api.table().handle(nameSlot).invokeExact(session, i, allocator, nameOut));
                MemorySegment name = nameOut.get(ADDRESS, 0);
                names.add(OrtApi.cString(name));
                api.check(api.table().call(OrtApiSlot.AllocatorFree, allocator, name));
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

    /**
     * {@code Run} over values the caller made, host or device (e.g. {@link ExternalResourceImporter#createTensor} over
     * imported memory), with every output pre-allocated: ORT writes into the given output values, so nothing is
     * allocated or copied. The plain-Run path of an app without IoBinding.
     *
     * @param outputs a value for each output to compute, of its shape and type; ORT refuses one that does not fit
     * @param options null for ORT's defaults
     */
    public void run(Map<String, OrtTensor> inputs, Map<String, OrtTensor> outputs, RunOptions options) {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment[] in = namesAndValues(arena, inputs);
            MemorySegment[] out = namesAndValues(arena, outputs);
            MemorySegment runOptions = options == null ? MemorySegment.NULL : options.handle();
            api.check((MemorySegment) api.table().handle(OrtApiSlot.Run).invokeExact(handle(), runOptions, in[0], in[1],
                    (long) inputs.size(), out[0], (long) outputs.size(), out[1]));
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** Run's parallel C arrays for {@code values}: [names, OrtValue pointers]. */
    private static MemorySegment[] namesAndValues(Arena arena, Map<String, OrtTensor> values) {
        MemorySegment names = arena.allocate(ADDRESS, Math.max(1, values.size()));
        MemorySegment pointers = arena.allocate(ADDRESS, Math.max(1, values.size()));
        int i = 0;
        for (var entry : values.entrySet()) {
            names.setAtIndex(ADDRESS, i, arena.allocateFrom(entry.getKey()));
            pointers.setAtIndex(ADDRESS, i++, entry.getValue().handle());
        }
        return new MemorySegment[] {names, pointers};
    }

    /**
     * {@code SessionEndProfiling}: stops the profiler of a session made with
     * {@link SessionOptions#enableProfiling} and returns the path of the JSON file ORT wrote (ORT names the
     * file; it returns an empty string when profiling was not enabled).
     */
    public String endProfiling() {
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment allocatorOut = arena.allocate(ADDRESS);
            api.check(api.table().call(OrtApiSlot.GetAllocatorWithDefaultOptions, allocatorOut));
            MemorySegment allocator = allocatorOut.get(ADDRESS, 0);
            MemorySegment pathOut = arena.allocate(ADDRESS);
            api.check(api.table().call(OrtApiSlot.SessionEndProfiling, handle(), allocator, pathOut));
            MemorySegment path = pathOut.get(ADDRESS, 0);
            if (path.equals(MemorySegment.NULL)) {
                return "";
            }
            try {
                return OrtApi.cString(path);
            } finally {
                api.check(api.table().call(OrtApiSlot.AllocatorFree, allocator, path));
            }
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    // ---- device side: bindings, placement, allocators -----------------------------------------

    /** {@code CreateIoBinding}: an empty binding of this session. */
    public IoBinding createIoBinding() {
        return dependents.remember(new IoBinding(api, OrtCalls.pointerOut(api, OrtApiSlot.CreateIoBinding, handle()),
                dependents::forget));
    }

    /**
     * {@code RunWithBinding}: runs with the binding's inputs and outputs; read outputs with
     * {@link IoBinding#outputs()}.
     *
     * @param options null for ORT's defaults
     */
    public void run(IoBinding binding, RunOptions options) {
        MemorySegment runOptions = options == null ? MemorySegment.NULL : options.handle();
        api.check(api.table().call(OrtApiSlot.RunWithBinding, handle(), runOptions, binding.handle()));
    }

    /**
     * {@code SessionGetMemoryInfoForInputs}: where the session wants each input (in {@link #inputNames()}
     * order), borrowed: valid while the session is open. An entry is null if ORT reports no location
     * (ORT 1.29 filled every entry in our tests).
     */
    public List<MemoryInfo> inputMemoryInfos() {
        return memoryInfos(OrtApiSlot.SessionGetMemoryInfoForInputs, inputNames.size());
    }

    /** {@code SessionGetMemoryInfoForOutputs}: where each output is produced (in {@link #outputNames()} order); borrowed. */
    public List<MemoryInfo> outputMemoryInfos() {
        return memoryInfos(OrtApiSlot.SessionGetMemoryInfoForOutputs, outputNames.size());
    }

    /**
     * {@code SessionGetEpDeviceForInputs}: the EP device that consumes each input (in {@link #inputNames()}
     * order); empty where ORT names none (an input no EP device claims, e.g. one only ORT's built-in CPU EP reads).
     */
    public List<Optional<EpDevice>> inputEpDevices() {
        return epDevices(OrtApiSlot.SessionGetEpDeviceForInputs, inputNames.size());
    }

    /** {@code SessionGetEpDeviceForOutputs} (API 24): the EP device producing each output; empty where ORT names none. */
    public List<Optional<EpDevice>> outputEpDevices() {
        return epDevices(OrtApiSlot.SessionGetEpDeviceForOutputs, outputNames.size());
    }

    /**
     * {@code CreateAllocator}: an allocator for {@code memoryInfo} from the session's EPs (owned; close it
     * after the tensors allocated from it and before the session, which closes it otherwise).
     */
    public Allocator allocator(MemoryInfo memoryInfo) {
        return dependents.remember(Allocator.owned(api, OrtCalls.pointerOut(api, OrtApiSlot.CreateAllocator, handle(),
                memoryInfo.handle()), dependents::forget));
    }

    private List<MemoryInfo> memoryInfos(OrtApiSlot slot, int count) {
        List<MemoryInfo> infos = new ArrayList<>(count);
        for (MemorySegment info : pointers(slot, count)) {
            infos.add(MemoryInfo.borrowed(api, info));
        }
        return Collections.unmodifiableList(infos);
    }

    private List<Optional<EpDevice>> epDevices(OrtApiSlot slot, int count) {
        List<Optional<EpDevice>> devices = new ArrayList<>(count);
        for (MemorySegment device : pointers(slot, count)) {
            devices.add(device.equals(MemorySegment.NULL) ? Optional.empty() : Optional.of(EpDevice.of(api, device)));
        }
        return List.copyOf(devices);
    }

    /** The {@code (session, const T** out, size_t n)} pattern: n borrowed pointers, NULL where ORT has none. */
    private List<MemorySegment> pointers(OrtApiSlot slot, int count) {
        if (count == 0) {
            return List.of();
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment array = arena.allocate(ADDRESS, count); // zero-filled: untouched entries read as NULL
            api.check((MemorySegment) api.table().handle(slot).invokeExact(handle(), array, (long) count));
            List<MemorySegment> result = new ArrayList<>(count);
            for (int i = 0; i < count; i++) {
                result.add(array.getAtIndex(ADDRESS, i));
            }
            return result;
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

    /**
     * Closes the bindings and allocators made from this session that are still open (newest first), then
     * releases the session.
     *
     * @throws IllegalStateException when one of them cannot close (an allocator with open tensors); the
     *     session stays open then, as releasing it would leave them dangling
     */
    @Override
    public void close() {
        if (session != null) {
            dependents.closeNewestFirst();
            api.table().callVoid(OrtApiSlot.ReleaseSession, session);
            session = null;
        }
    }
}
