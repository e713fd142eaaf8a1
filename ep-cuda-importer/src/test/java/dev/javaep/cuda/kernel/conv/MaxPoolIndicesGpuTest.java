package dev.javaep.cuda.kernel.conv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.cuda.kernel.DeviceRunContext;
import dev.javaep.cuda.kernel.GpuTest;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * MaxPool with its Indices output on GPU 0 against JavaCpu's kernel (itself checked against the ONNX examples in
 * {@code MaxPoolIndicesTest}): Y and the indices must be equal, element for element (a maximum is exact, and both
 * take the first of equal maxima), in float32 and float16, row- and column-major, 1 to 3 spatial axes.
 */
@Tag("gpu")
class MaxPoolIndicesGpuTest extends GpuTest {


    private static Attribute ints(String name, long... values) {
        List<Long> list = new ArrayList<>();
        for (long v : values) {
            list.add(v);
        }
        return new Attribute.IntList(name, list);
    }

    private static Node node(ElementType type, long[] x, Attribute... attributes) {
        Map<String, Attribute> map = new HashMap<>();
        for (Attribute a : attributes) {
            map.put(a.name(), a);
        }
        return new Node(1, "maxpool", "MaxPool", "", 12, List.of(new ValueInfo("x", type, x, true)),
                List.of(new ValueInfo("y", type, null, true), new ValueInfo("i", ElementType.INT64, null, true)), map);
    }

    @Test
    void indicesMatchJavaCpu() {
        for (ElementType type : List.of(ElementType.FLOAT, ElementType.FLOAT16)) {
            for (long order : new long[] {0, 1}) {
                Attribute storage = new Attribute.IntValue("storage_order", order);
                check(node(type, new long[] {2, 3, 11, 12}, ints("kernel_shape", 3, 3), ints("strides", 2, 2),
                        ints("pads", 1, 1, 1, 1), storage), type, new long[] {2, 3, 11, 12});
                check(node(type, new long[] {2, 3, 9, 10}, ints("kernel_shape", 2, 3), ints("dilations", 2, 1),
                        new Attribute.IntValue("ceil_mode", 1), ints("strides", 2, 2), storage), type, new long[] {2, 3, 9, 10});
                check(node(type, new long[] {1, 2, 17}, ints("kernel_shape", 4), ints("pads", 2, 1), storage), type,
                        new long[] {1, 2, 17});
                check(node(type, new long[] {1, 2, 5, 6, 7}, ints("kernel_shape", 2, 3, 2), ints("strides", 1, 2, 2),
                        storage), type, new long[] {1, 2, 5, 6, 7});
            }
        }
    }

    private void check(Node node, ElementType type, long[] shape) {
        Random random = new Random(java.util.Arrays.hashCode(shape) + type.ordinal());
        int n = Math.toIntExact(java.util.Arrays.stream(shape).reduce(1, Math::multiplyExact));
        try (Arena arena = Arena.ofConfined()) {
            HostTensor x = HostTensor.allocate(arena, type, shape);
            for (int i = 0; i < n; i++) {
                float v = random.nextFloat() * 4 - 2;
                if (type == ElementType.FLOAT) {
                    x.data().setAtIndex(ValueLayout.JAVA_FLOAT, i, v);
                } else {
                    x.data().setAtIndex(ValueLayout.JAVA_SHORT, i, Float.floatToFloat16(v));
                }
            }
            CpuKernel cpu = CpuKernels.forNode(node).orElseThrow(() -> new AssertionError(CpuKernels.support(node)));
            long[][] shapes = cpu.outputShapes(new long[][] {shape});
            HostTensor y = HostTensor.allocate(arena, type, shapes[0]);
            HostTensor indices = HostTensor.allocate(arena, ElementType.INT64, shapes[1]);
            cpu.compute(List.of(x), List.of(y, indices));

            DeviceRunContext.Data input = new DeviceRunContext.Data(type, shape, x.data().toArray(ValueLayout.JAVA_BYTE));
            try (DeviceRunContext context = new DeviceRunContext(driver, stream, List.of(type, ElementType.INT64), List.of(input));
                 CompiledNode gpu = CudaOps.compile(node, device)) {
                gpu.compute(context);
                String what = node.attributes().values() + " " + type;
                assertArrayEquals(y.data().toArray(ValueLayout.JAVA_BYTE), context.data(0).bytes(), what + " Y");
                assertArrayEquals(indices.data().toArray(ValueLayout.JAVA_LONG), context.data(1).toLongs(), what + " Indices");
                System.out.printf("MaxPool Indices %-90s %s: equal%n", node.attributes().values(), type);
            } catch (Exception e) {
                throw new AssertionError(e);
            }
        }
    }
}
