package dev.javaep.cuda.kernel.reduction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.GpuOrSkip;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.kernel.CudaKernelContext;
import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.cuda.kernel.DeviceTensor;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.TensorValue;
import dev.javaep.spi.ValueInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * One ONNX node run on both of javaep's backends with the same inputs: JavaCpu's kernel (the reference; from
 * {@link CpuKernels}) on host tensors, and JavaCuda's compiled node (from {@link CudaOps}, so its table row too) on
 * GPU 0, through a context that is a {@link CudaKernelContext} (inputs of any element type uploaded, outputs
 * allocated as the node asks, {@link #hostInput} answered from the host copy). Outputs come back as floats.
 */
public final class BothBackends implements AutoCloseable {
    private final CudaDriver driver;
    private final CudaDevice device;
    private final long stream;

    private BothBackends(CudaDriver driver) {
        this.driver = driver;
        this.device = CudaDevice.open(driver, 0);
        device.makeCurrent();
        this.stream = driver.streamCreate(CudaDriver.STREAM_NON_BLOCKING);
    }

    /** GPU 0, or the calling test skipped where there is none. */
    public static BothBackends open() {
        return new BothBackends(GpuOrSkip.driver());
    }

    /** Output 0 of both backends: shapes, and values as float (float16 widened, int64 converted). */
    public record Outputs(long[] cpuShape, float[] cpu, long[] gpuShape, float[] gpu) {}

    public static ValueInfo value(String name, ElementType type, long... shape) {
        return new ValueInfo(name, type, shape, true);
    }

    /** A constant initializer input (its values visible at compile time, as ORT's small initializers are). */
    public static ValueInfo constant(String name, long[] int64Values) {
        java.nio.ByteBuffer bytes = java.nio.ByteBuffer.allocate(8 * int64Values.length).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (long v : int64Values) {
            bytes.putLong(v);
        }
        bytes.flip();
        long[] shape = {int64Values.length};
        return new ValueInfo(name, ElementType.INT64, shape, true, true, new TensorValue(ElementType.INT64, shape, bytes));
    }

    public static Node node(String op, int version, List<ValueInfo> inputs, ValueInfo output, Attribute... attributes) {
        Map<String, Attribute> map = new HashMap<>();
        for (Attribute a : attributes) {
            map.put(a.name(), a);
        }
        return new Node(1, op.toLowerCase(), op, "", version, inputs, List.of(output), map);
    }

    /** A host tensor of {@code type} holding {@code values} (rounded to float16, or truncated to int64). */
    public static HostTensor host(Arena arena, ElementType type, float[] values, long... shape) {
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

    public static HostTensor int64s(Arena arena, long... values) {
        HostTensor t = HostTensor.allocate(arena, ElementType.INT64, values.length);
        MemorySegment.copy(values, 0, t.data(), ValueLayout.JAVA_LONG, 0, values.length);
        return t;
    }

    static float[] floats(Tensor t, MemorySegment data) {
        int n = Math.toIntExact(t.elementCount());
        float[] out = new float[n];
        for (int i = 0; i < n; i++) {
            out[i] = switch (t.elementType()) {
                case FLOAT -> data.getAtIndex(ValueLayout.JAVA_FLOAT, i);
                case FLOAT16 -> Float.float16ToFloat(data.getAtIndex(ValueLayout.JAVA_SHORT, i));
                case INT64 -> data.getAtIndex(ValueLayout.JAVA_LONG, i);
                default -> throw new IllegalArgumentException(t.elementType().toString());
            };
        }
        return out;
    }

    /** Runs {@code node} on both backends ({@code inputs[i]} null for an omitted input). */
    public Outputs run(Node node, List<HostTensor> inputs) {
        try (Arena arena = Arena.ofConfined()) {
            CpuKernel kernel = CpuKernels.forNode(node).orElseThrow(() -> new AssertionError("JavaCpu declines " + node
                    + ": " + CpuKernels.support(node)));
            long[] cpuShape = kernel.outputShapes(inputs)[0];
            HostTensor cpuOut = HostTensor.allocate(arena, node.outputs().getFirst().elementType(), cpuShape);
            kernel.compute(inputs, List.of(cpuOut));

            assertTrue(CudaOps.support(node).isSupported(), () -> "JavaCuda declines " + node + ": " + CudaOps.support(node));
            device.makeCurrent();
            try (CompiledNode gpuNode = CudaOps.compile(node, device); Context context = new Context(node, inputs)) {
                gpuNode.compute(context);
                driver.streamSynchronize(stream);
                Tensor out = context.outputs[0];
                MemorySegment back = arena.allocate(Math.max(1, out.byteSize()), 8);
                if (out.byteSize() > 0) {
                    driver.memcpyDtoH(back, out.data().address(), out.byteSize());
                }
                return new Outputs(cpuShape, floats(cpuOut, cpuOut.data()), out.shape(), floats(out, back));
            }
        }
    }

    /**
     * Asserts equal shapes and {@code |gpu - cpu| <= atol + rtol * |cpu|} element by element (NaN matches NaN,
     * an infinity the same infinity).
     */
    public static void assertClose(String what, Outputs o, double rtol, double atol) {
        assertArrayEquals(o.cpuShape(), o.gpuShape(), what + ": shape");
        for (int i = 0; i < o.cpu().length; i++) {
            float c = o.cpu()[i];
            float g = o.gpu()[i];
            boolean same = Float.compare(c, g) == 0 || Math.abs(g - c) <= atol + rtol * Math.abs(c);
            int at = i;
            assertTrue(same, () -> what + ": element " + at + " is " + g + " on the GPU, " + c + " on the CPU");
        }
    }

    @Override
    public void close() {
        device.makeCurrent();
        driver.streamSynchronize(stream);
        driver.streamDestroy(stream);
        device.close();
    }

    /** ORT's side of one Compute for one node, on the test's stream. */
    private final class Context implements CudaKernelContext, AutoCloseable {
        private final Node node;
        private final List<HostTensor> hostInputs;
        private final Tensor[] inputs;
        private final Tensor[] outputs;
        private final List<Long> allocations = new ArrayList<>();

        Context(Node node, List<HostTensor> hostInputs) {
            this.node = node;
            this.hostInputs = hostInputs;
            this.inputs = new Tensor[hostInputs.size()];
            this.outputs = new Tensor[node.outputs().size()];
            for (int i = 0; i < inputs.length; i++) {
                HostTensor h = hostInputs.get(i);
                if (h != null) {
                    long address = allocate(h.byteSize());
                    if (h.byteSize() > 0) {
                        driver.memcpyHtoD(address, h.data(), h.byteSize());
                    }
                    inputs[i] = DeviceTensor.at(address, h.elementType(), h.shape());
                }
            }
        }

        private long allocate(long bytes) {
            long address = driver.memAlloc(Math.max(bytes, 8));
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
            ElementType type = node.outputs().get(index).elementType();
            long count = Arrays.stream(shape).reduce(1, Math::multiplyExact);
            outputs[index] = DeviceTensor.at(allocate(count * type.byteSize()), type, shape.clone());
            return outputs[index];
        }

        @Override
        public long computeStream() {
            return stream;
        }

        @Override
        public TensorValue hostInput(int index) {
            ValueInfo info = node.inputs().size() > index ? node.inputs().get(index) : null;
            if (info != null && info.value() != null) {
                return info.value();
            }
            HostTensor h = index < hostInputs.size() ? hostInputs.get(index) : null;
            return h == null ? null : new TensorValue(h.elementType(), h.shape(), h.data().asByteBuffer());
        }

        @Override
        public void close() {
            driver.streamSynchronize(stream);
            allocations.forEach(driver::memFree);
        }
    }
}
