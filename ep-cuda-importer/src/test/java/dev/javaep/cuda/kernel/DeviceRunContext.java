package dev.javaep.cuda.kernel;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.TensorValue;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;

/**
 * ORT's side of one Compute, for tests without ORT: the inputs (of any fixed-size element type) copied to device
 * memory, each output allocated when the kernel asks for it (as ORT's {@code KernelContext_GetOutput} does), the
 * Run's stream, and host copies of the inputs for {@link #hostInput} (a constant's model value first, as in a
 * compiled group). Works over the stand-in libcuda and a real GPU alike; the device's context must be current.
 * Every GPU kernel test runs its kernels through this one context.
 */
public final class DeviceRunContext implements CudaKernelContext, AutoCloseable {
    /** A tensor's type, shape and little-endian bytes. */
    public record Data(ElementType type, long[] shape, byte[] bytes) {
        public static Data floats(float[] values, long... shape) {
            return floats(ElementType.FLOAT, values, shape);
        }

        /** {@code values} stored as {@code type}: float32, float16 (rounded), or int64 (truncated). */
        public static Data floats(ElementType type, float[] values, long... shape) {
            ByteBuffer b = ByteBuffer.allocate(Math.toIntExact(values.length * type.byteSize())).order(ByteOrder.LITTLE_ENDIAN);
            for (float v : values) {
                switch (type) {
                    case FLOAT -> b.putFloat(v);
                    case FLOAT16 -> b.putShort(Float.floatToFloat16(v));
                    case INT64 -> b.putLong((long) v);
                    default -> throw new IllegalArgumentException(type.toString());
                }
            }
            return new Data(type, shape, b.array());
        }

        public static Data longs(long[] values, long... shape) {
            ByteBuffer b = ByteBuffer.allocate(values.length * 8).order(ByteOrder.LITTLE_ENDIAN);
            for (long v : values) {
                b.putLong(v);
            }
            return new Data(ElementType.INT64, shape, b.array());
        }

        /** The values as float: float32 as is, float16 widened, int64 converted. */
        public float[] toFloats() {
            ByteBuffer b = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
            int n = Math.toIntExact(bytes.length / type.byteSize());
            float[] out = new float[n];
            for (int i = 0; i < n; i++) {
                out[i] = switch (type) {
                    case FLOAT -> b.getFloat(i * 4);
                    case FLOAT16 -> Float.float16ToFloat(b.getShort(i * 2));
                    case INT64 -> b.getLong(i * 8);
                    default -> throw new IllegalArgumentException(type.toString());
                };
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

        TensorValue value() {
            return new TensorValue(type, shape, ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN));
        }
    }

    private final CudaDriver driver;
    private final long stream;
    private final List<Data> hostInputs;
    private final List<TensorValue> constants;
    private final Tensor[] inputs;
    private final ElementType[] outputTypes;
    private final Tensor[] outputs;
    private final boolean repeatable;
    private final List<Long> allocations = new ArrayList<>();
    private int outputRequests;

    /**
     * A context whose outputs have {@code outputTypes} (a null type: an omitted output) and whose inputs are
     * {@code inputData} (a null entry: an omitted input). {@code constants.get(i)}, where given, answers
     * {@link #hostInput} for input i. A {@code repeatable} context hands out the same output tensors on later
     * requests (a node computed repeatedly for timing); otherwise a second request for an output fails the test.
     */
    public DeviceRunContext(CudaDriver driver, long stream, List<ElementType> outputTypes, List<Data> inputData,
                            List<TensorValue> constants, boolean repeatable) {
        this.driver = driver;
        this.stream = stream;
        this.outputTypes = outputTypes.toArray(ElementType[]::new);
        this.outputs = new Tensor[this.outputTypes.length];
        this.hostInputs = Collections.unmodifiableList(new ArrayList<>(inputData));
        this.constants = constants;
        this.repeatable = repeatable;
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

    /** Inputs and outputs of any fixed-size element type; each output asked for once. */
    public DeviceRunContext(CudaDriver driver, long stream, List<ElementType> outputTypes, List<Data> inputData) {
        this(driver, stream, outputTypes, inputData, List.of(), false);
    }

    /** float32 inputs ({@code inputData[i]} null for an omitted input) and {@code outputCount} float32 outputs. */
    public DeviceRunContext(CudaDriver driver, long stream, int outputCount, float[][] inputData, long[][] inputShapes) {
        this(driver, stream, Collections.nCopies(outputCount, ElementType.FLOAT), data(ElementType.FLOAT, inputData, inputShapes));
    }

    /**
     * One node's inputs and outputs all of {@code type} (float32 or float16: values rounded), outputs handed out
     * again on later requests so that the node can be computed repeatedly for timing.
     */
    public static DeviceRunContext repeatable(CudaDriver driver, long stream, ElementType type, int outputCount,
                                              float[][] inputData, long[][] inputShapes) {
        return new DeviceRunContext(driver, stream, Collections.nCopies(outputCount, type),
                data(type, inputData, inputShapes), List.of(), true);
    }

    private static List<Data> data(ElementType type, float[][] values, long[][] shapes) {
        List<Data> data = new ArrayList<>();
        for (int i = 0; i < values.length; i++) {
            data.add(values[i] == null ? null : Data.floats(type, values[i], shapes[i].clone()));
        }
        return data;
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
        return index < inputs.length ? inputs[index] : null;
    }

    @Override
    public Tensor output(int index, long[] shape) {
        if (outputs[index] != null) {
            if (repeatable) {
                return outputs[index];
            }
            throw new AssertionError("output " + index + " requested twice");
        }
        ElementType type = outputTypes[index];
        if (type == null) {
            return null;
        }
        outputRequests++;
        long elements = Arrays.stream(shape).reduce(1, Math::multiplyExact);
        outputs[index] = DeviceTensor.at(allocate(elements * type.byteSize()), type, shape.clone());
        return outputs[index];
    }

    @Override
    public long computeStream() {
        return stream;
    }

    @Override
    public TensorValue hostInput(int index) {
        TensorValue constant = index < constants.size() ? constants.get(index) : null;
        if (constant != null) {
            return constant;
        }
        Data d = index < hostInputs.size() ? hostInputs.get(index) : null;
        return d == null ? null : d.value();
    }

    public long[] outputShape(int index) {
        return outputs[index].shape();
    }

    /** Output {@code index} after the stream's work is done. */
    public Data data(int index) {
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

    /** Output {@code index}'s values as float (see {@link Data#toFloats}), after the stream's work is done. */
    public float[] output(int index) {
        return data(index).toFloats();
    }

    public int outputRequests() {
        return outputRequests;
    }

    @Override
    public void close() {
        driver.streamSynchronize(stream);
        allocations.forEach(driver::memFree);
        allocations.clear();
    }
}
