package dev.javaep.host;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiSlot;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * An {@code OrtIoBinding} of one {@link Session} ({@link Session#createIoBinding()}): inputs and outputs
 * bound once, on whatever device they live, and reused by {@link Session#run(IoBinding, RunOptions)}.
 * Owned; close it before its session (the session closes open bindings it created when it closes).
 *
 * <p>ORT keeps its own reference to a bound value, so a tensor made by {@link OrtTensor#allocate} or
 * {@link OrtTensor#fromHost} may be closed after binding; a {@linkplain OrtTensor#wrap wrapped} tensor's
 * memory must still outlive the binding.
 */
public final class IoBinding implements AutoCloseable {
    private final OrtApi api;
    private final Consumer<AutoCloseable> onClose; // tells the session this binding is gone
    private final LinkedHashSet<String> outputNames = new LinkedHashSet<>();
    private MemorySegment binding;

    IoBinding(OrtApi api, MemorySegment binding, Consumer<AutoCloseable> onClose) {
        this.api = api;
        this.binding = binding;
        this.onClose = onClose;
    }

    /** The {@code OrtIoBinding*}. */
    public MemorySegment handle() {
        return OrtCalls.live(binding, "IoBinding");
    }

    /** {@code BindInput}; ORT copies the value to the device the session wants it on if it lives elsewhere. */
    public IoBinding bindInput(String name, OrtTensor tensor) {
        return bind(OrtApiSlot.BindInput, name, tensor.handle());
    }

    /** {@code BindOutput}: the run writes this output into {@code tensor} (shape and type must match). */
    public IoBinding bindOutput(String name, OrtTensor tensor) {
        bind(OrtApiSlot.BindOutput, name, tensor.handle());
        outputNames.add(name);
        return this;
    }

    /**
     * {@code BindOutputToDevice}: the run allocates this output where {@code memoryInfo} says; read it with
     * {@link #outputs()}. For an EP's device memory pass the EP's own info ({@link EpDevice#memoryInfo}):
     * ORT finds the allocator by that info.
     */
    public IoBinding bindOutputToDevice(String name, MemoryInfo memoryInfo) {
        bind(OrtApiSlot.BindOutputToDevice, name, memoryInfo.handle());
        outputNames.add(name);
        return this;
    }

    private IoBinding bind(OrtApiSlot slot, String name, MemorySegment object) {
        try (Arena arena = Arena.ofConfined()) {
            api.check(api.table().call(slot, handle(), arena.allocateFrom(name), object));
            return this;
        }
    }

    /** Names of the bound outputs, in binding order (the order of {@link #outputs()}). */
    public List<String> outputNames() {
        return List.copyOf(outputNames);
    }

    /**
     * {@code GetBoundOutputValues}: the bound outputs after a run, in binding order, each a new owned
     * tensor (close each). They share their bytes with the binding: a later run on the same binding may
     * write into them, so copy out ({@link OrtTensor#toHost()}) what must survive it.
     */
    public List<OrtTensor> outputs() {
        MemorySegment allocator = Allocator.defaultCpuHandle(api);
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment arrayOut = arena.allocate(ADDRESS);
            MemorySegment countOut = arena.allocate(JAVA_LONG);
            api.check(api.table().call(OrtApiSlot.GetBoundOutputValues, handle(), allocator, arrayOut, countOut));
            long count = countOut.get(JAVA_LONG, 0);
            MemorySegment array = arrayOut.get(ADDRESS, 0);
            if (array.equals(MemorySegment.NULL)) {
                return List.of();
            }
            array = array.reinterpret(count * ADDRESS.byteSize());
            List<OrtTensor> tensors = new ArrayList<>((int) count);
            try {
                for (long i = 0; i < count; i++) {
                    MemorySegment value = array.getAtIndex(ADDRESS, i);
                    try {
                        tensors.add(OrtTensor.adopt(api, value));
                    } catch (RuntimeException e) {
                        for (long j = i + 1; j < count; j++) {
                            api.releaseValue(array.getAtIndex(ADDRESS, j)); // adopt released value i itself
                        }
                        tensors.forEach(OrtTensor::close);
                        throw e;
                    }
                }
            } finally {
                // the array is the caller's to free, through the allocator it was allocated with
                api.check(api.table().call(OrtApiSlot.AllocatorFree, allocator, array));
            }
            return tensors;
        }
    }

    /** {@link #outputs()} keyed by {@linkplain #outputNames() name}. */
    public Map<String, OrtTensor> outputsByName() {
        List<OrtTensor> tensors = outputs();
        List<String> names = outputNames();
        if (tensors.size() != names.size()) {
            tensors.forEach(OrtTensor::close);
            throw new IllegalStateException("javaep: ORT returned " + tensors.size() + " bound outputs for " + names);
        }
        Map<String, OrtTensor> result = new LinkedHashMap<>();
        for (int i = 0; i < names.size(); i++) {
            result.put(names.get(i), tensors.get(i));
        }
        return result;
    }

    /** {@code ClearBoundInputs}. */
    public void clearInputs() {
        voidCall(OrtApiSlot.ClearBoundInputs);
    }

    /** {@code ClearBoundOutputs}. */
    public void clearOutputs() {
        voidCall(OrtApiSlot.ClearBoundOutputs);
        outputNames.clear();
    }

    /** {@code SynchronizeBoundInputs}: waits until copies of bound inputs to their devices are done. */
    public void synchronizeInputs() {
        statusCall(OrtApiSlot.SynchronizeBoundInputs);
    }

    /** {@code SynchronizeBoundOutputs}: waits until the run's writes to the bound outputs are done. */
    public void synchronizeOutputs() {
        statusCall(OrtApiSlot.SynchronizeBoundOutputs);
    }

    private void voidCall(OrtApiSlot slot) {
        api.table().callVoid(slot, handle());
    }

    private void statusCall(OrtApiSlot slot) {
        api.check(api.table().call(slot, handle()));
    }

    @Override
    public void close() {
        if (binding != null) {
            api.table().callVoid(OrtApiSlot.ReleaseIoBinding, binding);
            binding = null;
            onClose.accept(this);
        }
    }
}
