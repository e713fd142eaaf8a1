package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.kernel.DeviceTensor;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.List;

/**
 * ORT's side of one Compute of a fused node with inputs and outputs of any fixed-size element type, for tests
 * without ORT: inputs copied to device memory, each output allocated when the program asks for it. Works over
 * the stand-in libcuda and a real GPU alike; the device's context must be current.
 */
public final class TypedRunContext implements KernelContext, AutoCloseable {
    /** A tensor's type, shape and little-endian bytes. */
    public record Data(ElementType type, long[] shape, byte[] bytes) {
        public static Data floats(float[] values, long... shape) {
            ByteBuffer b = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            for (float v : values) {
                b.putFloat(v);
            }
            return new Data(ElementType.FLOAT, shape, b.array());
        }

        public static Data longs(long[] values, long... shape) {
            ByteBuffer b = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
            for (long v : values) {
                b.putLong(v);
            }
            return new Data(ElementType.INT64, shape, b.array());
        }

        public float[] toFloats() {
            ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            float[] out = new float[bytes.length / 4];
            for (int i = 0; i < out.length; i++) {
                out[i] = b.getFloat(i * 4);
            }
            return out;
        }

        public long[] toLongs() {
            ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            long[] out = new long[bytes.length / 8];
            for (int i = 0; i < out.length; i++) {
                out[i] = b.getLong(i * 8);
            }
            return out;
        }
    }

    private final CudaDriver driver;
    private final long stream;
    private final Tensor[] inputs;
    private final ElementType[] outputTypes;
    private final Tensor[] outputs;
    private final List<Long> allocations = new ArrayList<>();

    public TypedRunContext(CudaDriver driver, long stream, List<ElementType> outputTypes, List<Data> inputData) {
        this.driver = driver;
        this.stream = stream;
        this.outputTypes = outputTypes.toArray(ElementType[]::new);
        this.outputs = new Tensor[this.outputTypes.length];
        this.inputs = new Tensor[inputData.size()];
        try (Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < inputs.length; i++) {
                Data d = inputData.get(i);
                if (d == null) {
                    continue;
                }
                long address = allocate(d.bytes().length);
                if (d.bytes().length > 0) {
                    driver.memcpyHtoD(address, arena.allocateFrom(ValueLayout.JAVA_BYTE, d.bytes()), d.bytes().length);
                }
                inputs[i] = DeviceTensor.at(address, d.type(), d.shape().clone());
            }
        }
    }

    private long allocate(long bytes) {
        long address = driver.memAlloc(Math.max(bytes, 16));
        allocations.add(address);
        return address;
    }

    @Override
    public int inputCount() {
        return inputs.length;
    }

    @Override
    public int outputCount() {
        return outputs.length;
    }

    @Override
    public Tensor input(int index) {
        return inputs[index];
    }

    @Override
    public Tensor output(int index, long[] shape) {
        if (outputs[index] != null) {
            throw new AssertionError("output " + index + " requested twice");
        }
        long elements = 1;
        for (long d : shape) {
            elements *= d;
        }
        outputs[index] = DeviceTensor.at(allocate(elements * outputTypes[index].byteSize()), outputTypes[index], shape.clone());
        return outputs[index];
    }

    @Override
    public long computeStream() {
        return stream;
    }

    /** Output {@code index} after the stream's work is done. */
    public Data output(int index) {
        driver.streamSynchronize(stream);
        Tensor t = outputs[index];
        if (t == null) {
            throw new AssertionError("output " + index + " was never requested");
        }
        int bytes = Math.toIntExact(t.byteSize());
        byte[] out = new byte[bytes];
        if (bytes > 0) {
            try (Arena arena = Arena.ofConfined()) {
                MemorySegment host = arena.allocate(bytes);
                driver.memcpyDtoH(host, t.data().address(), bytes);
                MemorySegment.copy(host, ValueLayout.JAVA_BYTE, 0, out, 0, bytes);
            }
        }
        return new Data(t.elementType(), t.shape(), out);
    }

    @Override
    public void close() {
        driver.streamSynchronize(stream);
        allocations.forEach(driver::memFree);
        allocations.clear();
    }
}
