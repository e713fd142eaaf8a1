package dev.javaep.cuda.kernel.conv;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;
import static java.lang.foreign.ValueLayout.JAVA_SHORT;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.kernel.DeviceTensor;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * ORT's side of one Compute for a single node, in float32 or float16: inputs copied to the device (float values
 * rounded to float16 where the type is), outputs allocated on the first request and returned again on later ones
 * (so a node can be run repeatedly for timing), read back as float.
 */
final class TypedDeviceContext implements KernelContext, AutoCloseable {
    private final CudaDriver driver;
    private final long stream;
    private final ElementType type;
    private final Tensor[] inputs;
    private final Tensor[] outputs;
    private final List<Long> allocations = new ArrayList<>();

    TypedDeviceContext(CudaDriver driver, long stream, ElementType type, int outputCount, float[][] data, long[][] shapes) {
        this.driver = driver;
        this.stream = stream;
        this.type = type;
        this.inputs = new Tensor[data.length];
        this.outputs = new Tensor[outputCount];
        try (Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < data.length; i++) {
                if (data[i] == null) {
                    continue;
                }
                MemorySegment host = arena.allocate(Math.max(1, (long) data[i].length * type.byteSize()));
                for (int j = 0; j < data[i].length; j++) {
                    if (type == ElementType.FLOAT) {
                        host.setAtIndex(JAVA_FLOAT, j, data[i][j]);
                    } else {
                        host.setAtIndex(JAVA_SHORT, j, Float.floatToFloat16(data[i][j]));
                    }
                }
                long address = allocate(host.byteSize());
                driver.memcpyHtoD(address, host, host.byteSize());
                inputs[i] = DeviceTensor.at(address, type, shapes[i].clone());
            }
        }
    }

    private long allocate(long bytes) {
        long address = driver.memAlloc(Math.max(bytes, 4));
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
        if (outputs[index] == null) {
            long elements = 1;
            for (long d : shape) {
                elements *= d;
            }
            outputs[index] = DeviceTensor.at(allocate(elements * type.byteSize()), type, shape.clone());
        }
        return outputs[index];
    }

    @Override
    public long computeStream() {
        return stream;
    }

    long[] outputShape(int index) {
        return outputs[index].shape();
    }

    /** Output {@code index} as float, after the stream's work is done. */
    float[] output(int index) {
        driver.streamSynchronize(stream);
        Tensor t = outputs[index];
        int n = Math.toIntExact(t.elementCount());
        float[] values = new float[n];
        if (n == 0) {
            return values;
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate((long) n * type.byteSize());
            driver.memcpyDtoH(host, t.data().address(), host.byteSize());
            for (int i = 0; i < n; i++) {
                values[i] = type == ElementType.FLOAT ? host.getAtIndex(JAVA_FLOAT, i)
                        : Float.float16ToFloat(host.getAtIndex(JAVA_SHORT, i));
            }
        }
        return values;
    }

    @Override
    public void close() {
        driver.streamSynchronize(stream);
        allocations.forEach(driver::memFree);
        allocations.clear();
    }
}
