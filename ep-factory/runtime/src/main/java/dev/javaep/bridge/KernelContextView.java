package dev.javaep.bridge;

import static java.lang.foreign.ValueLayout.JAVA_INT;
import static java.lang.foreign.ValueLayout.JAVA_LONG;
import static java.lang.foreign.ValueLayout.JAVA_LONG_UNALIGNED;

import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.MemoryLocation;
import dev.javaep.spi.StepProfiler;
import dev.javaep.spi.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.Set;

/**
 * {@link KernelContext} over ORT's {@code OrtKernelContext}: one per thread per compiled node (or per-op kernel),
 * {@linkplain #bind bound} to the context of each {@code Compute} call on that thread and valid during it.
 *
 * <p>Every input is checked against where the EP's kernels can read ({@link KernelMemory}) before a
 * kernel sees it: an input in the wrong memory fails the Run with a status that names the input and
 * both places, instead of faulting the device. Inputs a per-op kernel declared as host inputs are
 * expected in host memory instead.
 *
 * <p><b>The Run path allocates nothing once tensors repeat.</b> ORT is called through {@link KernelContextCalls}
 * (pointers as {@code long}s, so no {@code MemorySegment} per returned pointer); out-parameters and output
 * dimensions go through this view's own native scratch (one view per thread, so concurrent Runs never share it;
 * the getters never call back into javaep). What the view learnt of each input and output on the last Run (its
 * {@code OrtValue}, data pointer, element type, shape and memory location) is kept in a {@link Seen}; when this
 * Run's tensor agrees with it, the same {@link Tensor} object is handed to the kernel again. Agreement is checked,
 * never assumed: per input ORT is asked for the value, its memory device, its type and shape (a pointer to ORT's
 * dimensions, compared in place) and its data pointer, and the memory device is compared with a reference device
 * of the location seen last ({@code MemoryDevice_AreEqual}: one call instead of the four getters
 * {@link MemoryLocations#of} makes).
 */
final class KernelContextView implements KernelContext {
    /** Output ranks whose dimensions fit the scratch; a larger rank takes a confined arena for the call. */
    private static final int SCRATCH_RANK = 16;
    private static final long OUT = 0;
    private static final long SHAPE_POINTER = 8;
    private static final long RANK = 16;
    private static final long TYPE = 24;
    private static final long DIMS = 32;
    /** All of memory, to read ORT's dimension arrays by address without a segment per read. */
    private static final MemorySegment EVERYTHING = MemorySegment.NULL.reinterpret(Long.MAX_VALUE);

    private final OrtRuntime runtime;
    private final KernelContextCalls calls;
    private final KernelMemory memory;
    private final boolean[] hostInputs;
    private final String node;
    private final MemorySegment scratch = Arena.ofAuto().allocate(DIMS + SCRATCH_RANK * JAVA_LONG.byteSize(), 8);
    private final long scratchAddress = scratch.address();
    private long context;
    private Seen[] inputs = new Seen[0];
    private Seen[] outputs = new Seen[0];
    /** Where the Compute notes its steps while ORT profiles the session, or null; set per Compute by {@link #bind}. */
    private StepProfiler stepProfiler;

    /**
     * @param node       what the failure messages call this compute call's node
     * @param hostInputs input indices the kernel declared as host memory (per-op kernels); empty for compiled nodes
     */
    KernelContextView(OrtRuntime runtime, KernelMemory memory, Set<Integer> hostInputs, String node) {
        this.runtime = runtime;
        this.calls = KernelContextCalls.of(runtime);
        this.memory = memory;
        this.hostInputs = new boolean[hostInputs.stream().mapToInt(i -> i + 1).max().orElse(0)];
        hostInputs.forEach(i -> this.hostInputs[i] = true);
        this.node = node;
    }

    /** Points this view at the context of the Compute call now running on this thread. */
    KernelContextView bind(long kernelContext) {
        return bind(kernelContext, null);
    }

    /** As {@link #bind(long)}, with where this Compute notes its steps while ORT profiles the session (or null). */
    KernelContextView bind(long kernelContext, StepProfiler stepProfiler) {
        this.stepProfiler = stepProfiler;
        this.context = kernelContext;
        return this;
    }

    @Override
    public int inputCount() {
        return Math.toIntExact(runtime.api().kernelContextInputCount(MemorySegment.ofAddress(context)));
    }

    @Override
    public int outputCount() {
        return Math.toIntExact(runtime.api().kernelContextOutputCount(MemorySegment.ofAddress(context)));
    }

    @Override
    public Tensor input(int index) {
        long value;
        try {
            check((long) calls.getInput.invokeExact(context, (long) index, scratchAddress + OUT));
            value = scratch.get(JAVA_LONG, OUT);
            if (value == 0) {
                return null;
            }
            if (index >= inputs.length) {
                inputs = grow(inputs, index);
            }
            Seen seen = inputs[index];
            MemoryLocation location = location(value, seen);
            boolean expectHost = memory.host() || (index < hostInputs.length && hostInputs[index]);
            boolean readable = expectHost ? location.hostAccessible() : memory.canRead(location);
            if (!readable) {
                throw new OrtException(OrtErrorCode.EP_FAIL, "javaep: " + node + " got input " + index + " in "
                        + location.deviceType() + " " + location.deviceId() + " " + location.kind() + " memory, but its kernels read "
                        + (expectHost ? "host memory" : memory.describe()) + ". ORT should have copied it there "
                        + "(MemcpyFromHost/MemcpyToHost or the EP's data transfer); the Run is stopped before any kernel reads it");
            }
            check((long) calls.getTypeAndShape.invokeExact(value, scratchAddress + TYPE, scratchAddress + SHAPE_POINTER,
                    scratchAddress + RANK));
            int elementType = scratch.get(JAVA_INT, TYPE);
            long rank = scratch.get(JAVA_LONG, RANK);
            long dims = scratch.get(JAVA_LONG, SHAPE_POINTER);
            long data = dataAddress(value);
            if (seen != null && seen.matches(value, data, location) && seen.onnxType == elementType
                    && sameShape(seen.tensor.shape(), dims, rank)) {
                return seen.tensor;
            }
            inputs[index] = seen = seen(value, data, location, elementType, dimensions(dims, rank));
            return seen.tensor;
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    @Override
    public Tensor output(int index, long[] shape) {
        try {
            long value = createOutput(index, shape);
            if (value == 0) {
                return null;
            }
            if (index >= outputs.length) {
                outputs = grow(outputs, index);
            }
            Seen seen = outputs[index];
            MemoryLocation location = location(value, seen);
            long data = dataAddress(value);
            // An output's element type is the node's: a value with the last Run's address, data, place and shape is
            // that tensor again. Anything new is read from ORT in full.
            if (seen != null && seen.matches(value, data, location) && Arrays.equals(seen.tensor.shape(), shape)) {
                return seen.tensor;
            }
            check((long) calls.getTypeAndShape.invokeExact(value, scratchAddress + TYPE, scratchAddress + SHAPE_POINTER,
                    scratchAddress + RANK));
            int elementType = scratch.get(JAVA_INT, TYPE);
            long[] actual = dimensions(scratch.get(JAVA_LONG, SHAPE_POINTER), scratch.get(JAVA_LONG, RANK));
            outputs[index] = seen = seen(value, data, location, elementType, actual);
            return seen.tensor;
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    @Override
    public StepProfiler stepProfiler() {
        return stepProfiler;
    }

    @Override
    public long computeStream() {
        try {
            scratch.set(JAVA_LONG, OUT, 0L);
            check((long) calls.getComputeStream.invokeExact(context, scratchAddress + OUT));
            return scratch.get(JAVA_LONG, OUT);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
    }

    /** {@code KernelContext_GetOutput}, the dimensions passed through the scratch (a confined arena past {@link #SCRATCH_RANK}). */
    private long createOutput(int index, long[] shape) throws Throwable {
        if (shape.length > SCRATCH_RANK) {
            return runtime.api().kernelContextOutput(MemorySegment.ofAddress(context), index, shape).address();
        }
        for (int i = 0; i < shape.length; i++) {
            scratch.set(JAVA_LONG, DIMS + 8L * i, shape[i]);
        }
        check((long) calls.getOutput.invokeExact(context, (long) index, scratchAddress + DIMS, (long) shape.length,
                scratchAddress + OUT));
        return scratch.get(JAVA_LONG, OUT);
    }

    private long dataAddress(long value) throws Throwable {
        check((long) calls.getTensorMutableData.invokeExact(value, scratchAddress + OUT));
        return scratch.get(JAVA_LONG, OUT);
    }

    /** Where {@code value}'s data lives: the location seen last when its memory device equals that location's reference. */
    private MemoryLocation location(long value, Seen seen) throws Throwable {
        long device = (long) calls.valueMemoryDevice.invokeExact(value);
        if (device == 0) {
            return MemoryLocation.HOST;
        }
        if (seen != null && (boolean) calls.memoryDevicesEqual.invokeExact(device, seen.referenceDevice)) {
            return seen.location;
        }
        return MemoryLocations.of(runtime.epApi(), MemorySegment.ofAddress(device));
    }

    private void check(long status) {
        KernelContextCalls.check(runtime.api(), status);
    }

    private Seen seen(long value, long data, MemoryLocation location, int elementType, long[] shape) {
        return new Seen(value, data, location, MemoryLocations.reference(runtime, location).address(), elementType,
                tensor(ElementType.fromOnnx(elementType), shape, data, location));
    }

    /** ORT's {@code rank} dimensions at address {@code dims}, copied (for a tensor not seen before). */
    private static long[] dimensions(long dims, long rank) {
        long[] shape = new long[Math.toIntExact(rank)];
        for (int i = 0; i < shape.length; i++) {
            shape[i] = EVERYTHING.get(JAVA_LONG_UNALIGNED, dims + 8L * i);
        }
        return shape;
    }

    /** Whether ORT's {@code rank} dimensions at address {@code dims} are {@code shape}. */
    private static boolean sameShape(long[] shape, long dims, long rank) {
        if (shape.length != rank) {
            return false;
        }
        for (int i = 0; i < shape.length; i++) {
            if (shape[i] != EVERYTHING.get(JAVA_LONG_UNALIGNED, dims + 8L * i)) {
                return false;
            }
        }
        return true;
    }

    private static Seen[] grow(Seen[] seen, int index) {
        return Arrays.copyOf(seen, Math.max(index + 1, seen.length * 2));
    }

    private static Tensor tensor(ElementType type, long[] shape, long address, MemoryLocation location) {
        MemorySegment data = MemorySegment.ofAddress(address);
        if (location.hostAccessible()) {
            long elements = 1;
            for (long d : shape) {
                elements = Math.multiplyExact(elements, d);
            }
            data = data.reinterpret(Math.multiplyExact(elements, type.byteSize()));
        }
        return new OrtTensor(type, shape, data);
    }

    /**
     * What the last Run on this thread handed over at one input or output index; {@code referenceDevice} is a device
     * at {@code location} that outlives every tensor ({@link MemoryLocations#reference}).
     */
    private record Seen(long value, long data, MemoryLocation location, long referenceDevice, int onnxType, Tensor tensor) {
        boolean matches(long value, long data, MemoryLocation location) {
            return this.value == value && this.data == data && this.location.equals(location);
        }
    }

    /** A tensor ORT owns, seen for the duration of one Compute (and handed out again while ORT hands the same one). */
    record OrtTensor(ElementType elementType, long[] shape, MemorySegment data) implements Tensor {}
}
