package dev.javaep.bridge;

import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.MemoryLocation;
import dev.javaep.spi.StepProfiler;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.util.Set;

/**
 * {@link KernelContext} over ORT's {@code OrtKernelContext}, valid during one {@code Compute} call.
 *
 * <p>Every input is checked against where the EP's kernels can read ({@link KernelMemory}) before a
 * kernel sees it: an input in the wrong memory fails the Run with a status that names the input and
 * both places, instead of faulting the device. Inputs a per-op kernel declared as host inputs are
 * expected in host memory instead.
 */
final class KernelContextView implements KernelContext {
    private final OrtRuntime runtime;
    private final MemorySegment context;
    private final KernelMemory memory;
    private final Set<Integer> hostInputs;
    private final String node;
    /** Where the Compute notes its steps while ORT profiles the session, or null. */
    private final StepProfiler stepProfiler;

    /**
     * @param node       what the failure messages call this compute call's node
     * @param hostInputs input indices the kernel declared as host memory (per-op kernels); empty for compiled nodes
     */
    KernelContextView(OrtRuntime runtime, MemorySegment context, KernelMemory memory, Set<Integer> hostInputs,
                      String node) {
        this(runtime, context, memory, hostInputs, node, null);
    }

    /** @param stepProfiler where a compiled node notes its steps while ORT profiles the session, or null */
    KernelContextView(OrtRuntime runtime, MemorySegment context, KernelMemory memory, Set<Integer> hostInputs,
                      String node, StepProfiler stepProfiler) {
        this.stepProfiler = stepProfiler;
        this.runtime = runtime;
        this.context = context;
        this.memory = memory;
        this.hostInputs = hostInputs;
        this.node = node;
    }

    @Override
    public int inputCount() {
        return Math.toIntExact(runtime.api().kernelContextInputCount(context));
    }

    @Override
    public int outputCount() {
        return Math.toIntExact(runtime.api().kernelContextOutputCount(context));
    }

    @Override
    public Tensor input(int index) {
        MemorySegment value = runtime.api().kernelContextInput(context, index);
        if (value.equals(MemorySegment.NULL)) {
            return null;
        }
        MemoryLocation location = location(value);
        boolean expectHost = memory.host() || hostInputs.contains(index);
        boolean readable = expectHost ? location.hostAccessible() : memory.canRead(location);
        if (!readable) {
            throw new OrtException(OrtErrorCode.EP_FAIL, "javaep: " + node + " got input " + index + " in "
                    + location.deviceType() + " " + location.deviceId() + " " + location.kind() + " memory, but its kernels read "
                    + (expectHost ? "host memory" : memory.describe()) + ". ORT should have copied it there "
                    + "(MemcpyFromHost/MemcpyToHost or the EP's data transfer); the Run is stopped before any kernel reads it");
        }
        return view(value, location);
    }

    @Override
    public Tensor output(int index, long[] shape) {
        MemorySegment value = runtime.api().kernelContextOutput(context, index, shape);
        if (value.equals(MemorySegment.NULL)) {
            return null;
        }
        return view(value, location(value));
    }

    @Override
    public StepProfiler stepProfiler() {
        return stepProfiler;
    }

    @Override
    public long computeStream() {
        return runtime.api().kernelContextComputeStream(context);
    }

    private MemoryLocation location(MemorySegment value) {
        MemorySegment device = runtime.epApi().valueMemoryDevice(value);
        return device.equals(MemorySegment.NULL) ? MemoryLocation.HOST : MemoryLocations.of(runtime.epApi(), device);
    }

    private Tensor view(MemorySegment value, MemoryLocation location) {
        dev.javaep.ort.OrtApi.TensorShape tensorShape = runtime.api().tensorShape(value);
        ElementType type = ElementType.fromOnnx(tensorShape.elementType());
        long[] shape = tensorShape.dims();
        MemorySegment data = runtime.api().tensorMutableData(value);
        if (location.hostAccessible()) {
            long elements = 1;
            for (long d : shape) {
                elements = Math.multiplyExact(elements, d);
            }
            data = data.reinterpret(Math.multiplyExact(elements, type.byteSize()));
        }
        return new OrtTensor(type, shape, data);
    }

    /** A tensor ORT owns, seen for the duration of one Compute. */
    record OrtTensor(ElementType elementType, long[] shape, MemorySegment data) implements Tensor {}
}
