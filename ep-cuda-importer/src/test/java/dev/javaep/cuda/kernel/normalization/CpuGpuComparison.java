package dev.javaep.cuda.kernel.normalization;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.kernel.CudaKernelContext;
import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.cuda.kernel.DeviceTensor;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.TensorValue;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;

/**
 * Runs one node on JavaCpu (the reference) and on JavaCuda (GPU 0) with the same input bytes and compares the
 * outputs element by element within a tolerance. The CUDA node sees a {@link CudaKernelContext} as in a compiled
 * group: inputs in device memory, host copies for {@link CudaKernelContext#hostInput}, outputs allocated on request.
 */
public final class CpuGpuComparison implements AutoCloseable {
    private final CudaDriver driver;
    private final CudaDevice device;
    private final long stream;
    private final Arena arena = Arena.ofShared();
    private final List<Long> allocations = new ArrayList<>();

    public CpuGpuComparison(CudaDriver driver, CudaDevice device, long stream) {
        this.driver = driver;
        this.device = device;
        this.stream = stream;
    }

    /** A host tensor of {@code type} (float32, float16 or int64) holding {@code values}. */
    public HostTensor tensor(ElementType type, float[] values, long... shape) {
        HostTensor t = HostTensor.allocate(arena, type, shape);
        for (int i = 0; i < values.length; i++) {
            switch (type) {
                case FLOAT -> t.data().setAtIndex(ValueLayout.JAVA_FLOAT, i, values[i]);
                case FLOAT16 -> t.data().setAtIndex(ValueLayout.JAVA_SHORT, i, Float.floatToFloat16(values[i]));
                case INT64 -> t.data().setAtIndex(ValueLayout.JAVA_LONG, i, (long) values[i]);
                default -> throw new IllegalArgumentException(type.toString());
            }
        }
        return t;
    }

    public HostTensor random(Random random, ElementType type, float low, float high, long... shape) {
        float[] values = new float[(int) Arrays.stream(shape).reduce(1, Math::multiplyExact)];
        for (int i = 0; i < values.length; i++) {
            values[i] = low + (high - low) * random.nextFloat();
        }
        return tensor(type, values, shape);
    }

    /** Each output of {@code node} on the CPU and on the GPU, as floats: [output][0 = CPU, 1 = GPU][element]. */
    public float[][][] run(Node node, List<HostTensor> inputs) {
        CpuKernel cpu = CpuKernels.forNode(node).orElseThrow(() -> new AssertionError("JavaCpu: " + CpuKernels.support(node)));
        long[][] shapes = cpu.outputShapes(inputs);
        List<HostTensor> cpuOutputs = new ArrayList<>();
        for (int i = 0; i < shapes.length; i++) {
            cpuOutputs.add(i < node.outputs().size() && node.outputs().get(i) != null
                    ? HostTensor.allocate(arena, node.outputs().get(i).elementType(), shapes[i]) : null);
        }
        cpu.compute(inputs, cpuOutputs);

        device.makeCurrent();
        Context context = new Context(node, inputs);
        try (CompiledNode gpu = CudaOps.compile(node, device)) {
            gpu.compute(context);
            driver.streamSynchronize(stream);
        } catch (Exception e) {
            throw new AssertionError(e);
        }
        float[][][] result = new float[shapes.length][][];
        for (int i = 0; i < shapes.length; i++) {
            if (cpuOutputs.get(i) == null) {
                continue;
            }
            Tensor gpuOutput = context.outputs[i];
            assertArrayEquals(shapes[i], gpuOutput.shape(), node + " output " + i + " shape");
            result[i] = new float[][] {floats(cpuOutputs.get(i)), floats(download(gpuOutput))};
        }
        return result;
    }

    /** Asserts |gpu - cpu| <= absolute + relative * |cpu| for every element. */
    public static void assertClose(String what, float[][] cpuAndGpu, double absolute, double relative) {
        float[] cpu = cpuAndGpu[0];
        float[] gpu = cpuAndGpu[1];
        assertEquals(cpu.length, gpu.length, what);
        for (int i = 0; i < cpu.length; i++) {
            double tolerance = absolute + relative * Math.abs(cpu[i]);
            if (!(Math.abs(gpu[i] - cpu[i]) <= tolerance) && !(Float.isNaN(cpu[i]) && Float.isNaN(gpu[i]))) {
                throw new AssertionError(what + ": element " + i + " is " + gpu[i] + " on the GPU, " + cpu[i]
                        + " on the CPU (tolerance " + tolerance + ")");
            }
        }
    }

    private static float[] floats(HostTensor t) {
        float[] out = new float[(int) t.elementCount()];
        for (int i = 0; i < out.length; i++) {
            out[i] = t.elementType() == ElementType.FLOAT16
                    ? Float.float16ToFloat(t.data().getAtIndex(ValueLayout.JAVA_SHORT, i))
                    : t.data().getAtIndex(ValueLayout.JAVA_FLOAT, i);
        }
        return out;
    }

    private HostTensor download(Tensor t) {
        HostTensor host = HostTensor.allocate(arena, t.elementType(), t.shape());
        if (host.byteSize() > 0) {
            driver.memcpyDtoH(host.data(), t.data().address(), host.byteSize());
        }
        return host;
    }

    private long allocate(long bytes) {
        long address = driver.memAlloc(Math.max(bytes, 16));
        allocations.add(address);
        return address;
    }

    @Override
    public void close() {
        device.makeCurrent();
        driver.streamSynchronize(stream);
        allocations.forEach(driver::memFree);
        allocations.clear();
        arena.close();
    }

    private final class Context implements CudaKernelContext {
        private final Node node;
        private final List<HostTensor> host;
        private final Tensor[] inputs;
        final Tensor[] outputs;

        Context(Node node, List<HostTensor> host) {
            this.node = node;
            this.host = host;
            this.inputs = new Tensor[host.size()];
            for (int i = 0; i < inputs.length; i++) {
                HostTensor t = host.get(i);
                if (t != null) {
                    long address = allocate(t.byteSize());
                    if (t.byteSize() > 0) {
                        driver.memcpyHtoD(address, t.data(), t.byteSize());
                    }
                    inputs[i] = DeviceTensor.at(address, t.elementType(), t.shape());
                }
            }
            this.outputs = new Tensor[node.outputs().size()];
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
            if (node.outputs().get(index) == null) {
                return null;
            }
            ElementType type = node.outputs().get(index).elementType();
            long bytes = Arrays.stream(shape).reduce(1, Math::multiplyExact) * type.byteSize();
            outputs[index] = DeviceTensor.at(allocate(bytes), type, shape.clone());
            return outputs[index];
        }

        @Override
        public long computeStream() {
            return stream;
        }

        @Override
        public TensorValue hostInput(int index) {
            HostTensor t = index < host.size() ? host.get(index) : null;
            if (t == null) {
                return null;
            }
            ByteBuffer bytes = ByteBuffer.allocate((int) t.byteSize()).order(ByteOrder.LITTLE_ENDIAN);
            bytes.put(t.data().asByteBuffer().order(ByteOrder.LITTLE_ENDIAN)).flip();
            return new TensorValue(t.elementType(), t.shape(), bytes);
        }
    }
}
