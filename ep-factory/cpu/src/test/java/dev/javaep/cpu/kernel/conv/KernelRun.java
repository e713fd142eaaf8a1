package dev.javaep.cpu.kernel.conv;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import dev.javaep.spi.ops.KernelTable;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/** Builds a node, takes JavaCpu's kernel for it from this family's rows, and runs it on host tensors. */
final class KernelRun {
    static final KernelTable<CpuKernel> TABLE = new KernelTable<>("JavaCpuExecutionProvider", ConvKernels.rows());

    private KernelRun() {}

    static Attribute ints(String name, long... values) {
        List<Long> list = new ArrayList<>();
        for (long v : values) {
            list.add(v);
        }
        return new Attribute.IntList(name, list);
    }

    static Attribute integer(String name, long value) {
        return new Attribute.IntValue(name, value);
    }

    static Attribute string(String name, String value) {
        return new Attribute.StringValue(name, value);
    }

    /** A node whose inputs have these shapes ({@code null}: omitted) and one output of {@code type}. */
    static Node node(String op, int version, ElementType type, long[][] inputShapes, Attribute... attributes) {
        List<ValueInfo> inputs = new ArrayList<>();
        for (int i = 0; i < inputShapes.length; i++) {
            inputs.add(inputShapes[i] == null ? null : new ValueInfo("in" + i, type, inputShapes[i], true));
        }
        Map<String, Attribute> map = new HashMap<>();
        for (Attribute a : attributes) {
            map.put(a.name(), a);
        }
        return new Node(1, op.toLowerCase(), op, "", version, inputs, List.of(new ValueInfo("y", type, null, true)), map);
    }

    static CpuKernel kernel(Node node) {
        KernelTable.Selection<CpuKernel> selection = TABLE.select(node);
        if (selection instanceof KernelTable.Selection.Selected<CpuKernel>(var schema, var kernel)) {
            return kernel;
        }
        throw new AssertionError(node + " was declined: " + selection);
    }

    static float[] random(Random random, long count) {
        return TestTensors.randomFloats(random, count);
    }

    /** Float values rounded to what float16 holds, so a float16 run and the float reference read the same numbers. */
    static float[] roundedToHalf(float[] values) {
        float[] r = new float[values.length];
        for (int i = 0; i < r.length; i++) {
            r[i] = Float.float16ToFloat(Float.floatToFloat16(values[i]));
        }
        return r;
    }

    static HostTensor tensor(Arena arena, ElementType type, float[] values, long[] shape) {
        HostTensor t = TestTensors.misaligned(arena, type, shape);
        for (int i = 0; i < values.length; i++) {
            switch (type) {
                case FLOAT -> t.data().setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i, values[i]);
                case FLOAT16 -> t.data().setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, Float.floatToFloat16(values[i]));
                case INT8, UINT8 -> t.data().set(ValueLayout.JAVA_BYTE, i, (byte) values[i]);
                default -> throw new IllegalArgumentException(type.toString());
            }
        }
        return t;
    }

    static float[] values(HostTensor t) {
        int n = (int) t.elementCount();
        float[] v = new float[n];
        MemorySegment d = t.data();
        for (int i = 0; i < n; i++) {
            v[i] = switch (t.elementType()) {
                case FLOAT -> d.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i);
                case FLOAT16 -> Float.float16ToFloat(d.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i));
                case INT8 -> d.get(ValueLayout.JAVA_BYTE, i);
                case UINT8 -> Byte.toUnsignedInt(d.get(ValueLayout.JAVA_BYTE, i));
                default -> throw new IllegalArgumentException(t.elementType().toString());
            };
        }
        return v;
    }

    /**
     * Runs {@code node} on inputs holding {@code data} (null: omitted), checks the output shape, and returns Y's
     * values. The output starts as garbage, so an element the kernel forgets to write fails the comparison.
     */
    static float[] run(Node node, ElementType type, float[][] data, long[][] shapes, long[] expectedShape) {
        CpuKernel kernel = kernel(node);
        try (Arena arena = Arena.ofConfined()) {
            List<HostTensor> inputs = new ArrayList<>();
            for (int i = 0; i < data.length; i++) {
                inputs.add(data[i] == null ? null : tensor(arena, type, data[i], shapes[i]));
            }
            long[] shape = kernel.outputShapes(shapes)[0];
            assertArrayEquals(expectedShape, shape, node + " output shape");
            HostTensor y = TestTensors.misaligned(arena, type, shape);
            y.data().fill((byte) 0x7b);
            kernel.compute(inputs, List.of(y));
            return values(y);
        }
    }

    static void assertClose(float[] expected, float[] actual, float tolerance, String what) {
        assertEquals(expected.length, actual.length, what + ": element count");
        for (int i = 0; i < expected.length; i++) {
            float allowed = tolerance * Math.max(1f, Math.abs(expected[i]));
            if (!(Math.abs(expected[i] - actual[i]) <= allowed)) {
                throw new AssertionError(what + ": element " + i + " is " + actual[i] + ", expected " + expected[i]
                        + " (tolerance " + allowed + ")");
            }
        }
    }
}
