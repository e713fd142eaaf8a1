package dev.javaep.bridge;

import dev.javaep.ort.OrtApi;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;

/** {@link KernelContext} over ORT's {@code OrtKernelContext}, valid during one {@code Compute} call. */
final class KernelContextView implements KernelContext {
    private final OrtApi api;
    private final MemorySegment context;
    private final boolean hostAccessible;

    /** @param hostAccessible whether tensor data may be read by the host (false for device memory) */
    KernelContextView(OrtApi api, MemorySegment context, boolean hostAccessible) {
        this.api = api;
        this.context = context;
        this.hostAccessible = hostAccessible;
    }

    @Override
    public int inputCount() {
        return Math.toIntExact(api.kernelContextInputCount(context));
    }

    @Override
    public int outputCount() {
        return Math.toIntExact(api.kernelContextOutputCount(context));
    }

    @Override
    public Tensor input(int index) {
        MemorySegment value = api.kernelContextInput(context, index);
        return value.equals(MemorySegment.NULL) ? null : view(value);
    }

    @Override
    public Tensor output(int index, long[] shape) {
        MemorySegment value = api.kernelContextOutput(context, index, shape);
        if (value.equals(MemorySegment.NULL)) {
            return null;
        }
        return view(value);
    }

    @Override
    public long computeStream() {
        return api.kernelContextComputeStream(context);
    }

    private Tensor view(MemorySegment value) {
        OrtApi.TensorShape tensorShape = api.tensorShape(value);
        ElementType type = ElementType.fromOnnx(tensorShape.elementType());
        long[] shape = tensorShape.dims();
        MemorySegment data = api.tensorMutableData(value);
        if (hostAccessible) {
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
