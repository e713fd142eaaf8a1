package dev.javaep.cuda.kernel;

import static java.lang.foreign.ValueLayout.JAVA_FLOAT;

import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.KernelContext;
import dev.javaep.spi.Tensor;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;

/**
 * ORT's side of one Compute of a fused node, for tests without ORT: the inputs in device memory, each
 * output allocated when the program asks for it (as ORT's {@code KernelContext_GetOutput} does), and the
 * Run's stream. Works over the stand-in libcuda and a real GPU alike; the device's context must be current.
 */
public final class DeviceRunContext implements KernelContext, AutoCloseable {
    private final CudaDriver driver;
    private final long stream;
    private final Tensor[] inputs;
    private final Tensor[] outputs;
    private final List<Long> allocations = new ArrayList<>();
    private int outputRequests;

    public DeviceRunContext(CudaDriver driver, long stream, int outputCount, float[][] inputData, long[][] inputShapes) {
        this.driver = driver;
        this.stream = stream;
        this.inputs = new Tensor[inputData.length];
        this.outputs = new Tensor[outputCount];
        try (Arena arena = Arena.ofConfined()) {
            for (int i = 0; i < inputData.length; i++) {
                if (inputData[i] == null) {
                    continue;
                }
                long address = allocate(4L * inputData[i].length);
                if (inputData[i].length > 0) {
                    driver.memcpyHtoD(address, arena.allocateFrom(JAVA_FLOAT, inputData[i]), 4L * inputData[i].length);
                }
                inputs[i] = DeviceTensor.at(address, ElementType.FLOAT, inputShapes[i].clone());
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
        if (outputs[index] != null) {
            throw new AssertionError("output " + index + " requested twice");
        }
        outputRequests++;
        long elements = 1;
        for (long d : shape) {
            elements *= d;
        }
        outputs[index] = DeviceTensor.at(allocate(4 * elements), ElementType.FLOAT, shape.clone());
        return outputs[index];
    }

    @Override
    public long computeStream() {
        return stream;
    }

    public long[] outputShape(int index) {
        return outputs[index].shape();
    }

    /** Output {@code index}'s values, after the stream's work is done. */
    public float[] output(int index) {
        driver.streamSynchronize(stream);
        Tensor t = outputs[index];
        int n = Math.toIntExact(t.elementCount());
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment host = arena.allocate(JAVA_FLOAT, Math.max(n, 1));
            if (n > 0) {
                driver.memcpyDtoH(host, t.data().address(), 4L * n);
            }
            return n == 0 ? new float[0] : host.toArray(JAVA_FLOAT);
        }
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
