package dev.javaep.cuda.kernel;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.GpuOrSkip;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.cuda.driver.Nvrtc;
import dev.javaep.cuda.kernel.DeviceRunContext.Data;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.TensorValue;
import dev.javaep.spi.ValueInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * GPU 0 and a stream for a GPU test (the test skipped where there is none), and one ONNX node run on both of
 * javaep's backends with the same inputs: JavaCpu's kernel (the reference; from {@link CpuKernels}) on host
 * tensors, and JavaCuda's compiled node (from {@link CudaOps}, so its table row too) through a
 * {@link DeviceRunContext} (inputs of any element type uploaded, outputs allocated as the node asks,
 * {@link CudaKernelContext#hostInput} answered from the node's constants or the host copy). Outputs come back as
 * floats.
 */
public final class BothBackends implements AutoCloseable {
    private final CudaDriver driver;
    private final CudaDevice device;
    private final long stream;
    private final Arena arena = Arena.ofShared();

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

    /** GPU 0, or the calling test skipped where there is none or where NVRTC is missing when {@code needsNvrtc}. */
    public static BothBackends open(boolean needsNvrtc) {
        CudaDriver driver = GpuOrSkip.driver();
        if (needsNvrtc) {
            assumeTrue(Nvrtc.find().isPresent(), Nvrtc::absenceReason);
        }
        return new BothBackends(driver);
    }

    public CudaDriver driver() {
        return driver;
    }

    public CudaDevice device() {
        return device;
    }

    /** The test's non-blocking stream on GPU 0 (the Run's stream of every context made here). */
    public long stream() {
        return stream;
    }

    /** One output of both backends: shapes, and values as float (float16 widened, int64 converted). */
    public record Outputs(long[] cpuShape, float[] cpu, long[] gpuShape, float[] gpu) {}

    public static ValueInfo value(String name, ElementType type, long... shape) {
        return new ValueInfo(name, type, shape, true);
    }

    /** A constant initializer input (its values visible at compile time, as ORT's small initializers are). */
    public static ValueInfo constant(String name, long[] int64Values) {
        ByteBuffer bytes = ByteBuffer.allocate(8 * int64Values.length).order(ByteOrder.LITTLE_ENDIAN);
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

    /** {@link #host} in memory that lives until this is closed. */
    public HostTensor tensor(ElementType type, float[] values, long... shape) {
        return host(arena, type, values, shape);
    }

    /** A tensor of {@code type} with values uniform in [low, high), living until this is closed. */
    public HostTensor random(Random random, ElementType type, float low, float high, long... shape) {
        float[] values = new float[Math.toIntExact(Arrays.stream(shape).reduce(1, Math::multiplyExact))];
        for (int i = 0; i < values.length; i++) {
            values[i] = low + (high - low) * random.nextFloat();
        }
        return tensor(type, values, shape);
    }

    private static Data data(HostTensor t) {
        return t == null ? null : new Data(t.elementType(), t.shape(), t.data().toArray(ValueLayout.JAVA_BYTE));
    }

    /** Output 0 of {@code node} on both backends ({@code inputs[i]} null for an omitted input). */
    public Outputs run(Node node, List<HostTensor> inputs) {
        return runAll(node, inputs).getFirst();
    }

    /** Each output of {@code node} on both backends; null for an output the node omits. */
    public List<Outputs> runAll(Node node, List<HostTensor> inputs) {
        try (Arena local = Arena.ofConfined()) {
            CpuKernel kernel = CpuKernels.forNode(node).orElseThrow(() -> new AssertionError("JavaCpu declines " + node
                    + ": " + CpuKernels.support(node)));
            long[][] shapes = kernel.outputShapes(inputs);
            List<HostTensor> cpuOutputs = new ArrayList<>();
            for (int i = 0; i < shapes.length; i++) {
                ValueInfo info = i < node.outputs().size() ? node.outputs().get(i) : null;
                cpuOutputs.add(info == null ? null : HostTensor.allocate(local, info.elementType(), shapes[i]));
            }
            kernel.compute(inputs, cpuOutputs);

            assertTrue(CudaOps.support(node).isSupported(), () -> "JavaCuda declines " + node + ": " + CudaOps.support(node));
            device.makeCurrent();
            List<ElementType> outputTypes = node.outputs().stream().map(o -> o == null ? null : o.elementType()).toList();
            List<TensorValue> constants = node.inputs().stream().map(in -> in == null ? null : in.value()).toList();
            try (CompiledNode gpuNode = CudaOps.compile(node, device);
                 DeviceRunContext context = new DeviceRunContext(driver, stream, outputTypes,
                         inputs.stream().map(BothBackends::data).toList(), constants, true)) {
                gpuNode.compute(context);
                List<Outputs> outputs = new ArrayList<>();
                for (int i = 0; i < shapes.length; i++) {
                    HostTensor cpu = cpuOutputs.get(i);
                    if (cpu == null) {
                        outputs.add(null);
                        continue;
                    }
                    Data gpu = context.data(i);
                    outputs.add(new Outputs(shapes[i], data(cpu).toFloats(), gpu.shape(), gpu.toFloats()));
                }
                return outputs;
            }
        }
    }

    /**
     * Asserts equal shapes and {@code |gpu - cpu| <= atol + rtol * |cpu|} element by element (NaN matches NaN,
     * an infinity the same infinity).
     */
    public static void assertClose(String what, Outputs o, double rtol, double atol) {
        assertArrayEquals(o.cpuShape(), o.gpuShape(), what + ": shape");
        assertEquals(o.cpu().length, o.gpu().length, what + ": element count");
        for (int i = 0; i < o.cpu().length; i++) {
            float c = o.cpu()[i];
            float g = o.gpu()[i];
            boolean same = Float.compare(c, g) == 0 || Math.abs(g - c) <= atol + rtol * Math.abs(c);
            int at = i;
            assertTrue(same, () -> what + ": element " + at + " is " + g + " on the GPU, " + c + " on the CPU (tolerance "
                    + (atol + rtol * Math.abs(c)) + ")");
        }
    }

    @Override
    public void close() {
        device.makeCurrent();
        driver.streamSynchronize(stream);
        driver.streamDestroy(stream);
        device.close();
        arena.close();
    }
}
