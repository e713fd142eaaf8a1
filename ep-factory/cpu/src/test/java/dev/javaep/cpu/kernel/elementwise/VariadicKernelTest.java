package dev.javaep.cpu.kernel.elementwise;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** Min, Max, Sum, Mean of several inputs broadcast together, against a per-element reference. */
class VariadicKernelTest {
    private static final long[][] SHAPES = {{2, 1, 4}, {3, 1}, {}, {1, 3, 4}};

    private static HostTensor run(Arena arena, VariadicKernel k, List<HostTensor> inputs) {
        long[] shape = k.outputShapes(inputs.stream().map(HostTensor::shape).toArray(long[][]::new))[0];
        HostTensor y = TestTensors.misaligned(arena, k.elementType(), shape);
        k.compute(inputs, List.of(y));
        return y;
    }

    @ParameterizedTest
    @EnumSource(value = ElementType.class, names = {"FLOAT", "FLOAT16", "DOUBLE"})
    void fourInputsOfFourShapes(ElementType type) {
        Random random = new Random(type.ordinal());
        try (Arena arena = Arena.ofConfined()) {
            List<double[]> values = new ArrayList<>();
            List<HostTensor> inputs = new ArrayList<>();
            for (long[] s : SHAPES) {
                double[] v = new double[(int) Shapes.elementCount(s)];
                for (int i = 0; i < v.length; i++) {
                    v[i] = Tensors.round(type, random.nextGaussian());
                }
                values.add(v);
                inputs.add(Tensors.floats(arena, type, v, s));
            }
            long[] out = {2, 3, 4};
            for (String op : List.of("Min", "Max", "Sum", "Mean")) {
                double[] got = Tensors.toDoubles(run(arena, VariadicKernel.of(op, type), inputs));
                assertEquals(24, got.length);
                for (int i = 0; i < got.length; i++) {
                    double acc = values.get(0)[(int) TestTensors.broadcastSource(i, out, SHAPES[0])];
                    for (int k = 1; k < SHAPES.length; k++) {
                        double v = values.get(k)[(int) TestTensors.broadcastSource(i, out, SHAPES[k])];
                        acc = switch (op) {
                            case "Min" -> Math.min(acc, v);
                            case "Max" -> Math.max(acc, v);
                            default -> acc + v;
                        };
                    }
                    if (op.equals("Mean")) {
                        acc /= SHAPES.length;
                    }
                    assertEquals(Tensors.round(type, acc), got[i], 0, op + " " + type + " element " + i);
                }
            }
        }
    }

    @Test
    void oneInputIsCopied() {
        try (Arena arena = Arena.ofConfined()) {
            HostTensor x = Tensors.floats(arena, ElementType.FLOAT, new double[] {1, -2, 3}, 3);
            assertArrayEquals(new double[] {1, -2, 3}, Tensors.toDoubles(run(arena, VariadicKernel.of("Sum", ElementType.FLOAT), List.of(x))));
        }
    }

    @Test
    void integerMinAndMaxIncludingUnsigned64() {
        try (Arena arena = Arena.ofConfined()) {
            HostTensor a = Tensors.integers(arena, ElementType.INT32, new long[] {-3, 7}, 2);
            HostTensor b = Tensors.integers(arena, ElementType.INT32, new long[] {5}, 1);
            HostTensor c = Tensors.integers(arena, ElementType.INT32, new long[] {-1, 0, 1, 2}, 2, 2);
            assertArrayEquals(new long[] {-3, 0, -3, 2}, Tensors.toLongs(run(arena, VariadicKernel.of("Min", ElementType.INT32), List.of(a, b, c))));
            assertArrayEquals(new long[] {5, 7, 5, 7}, Tensors.toLongs(run(arena, VariadicKernel.of("Max", ElementType.INT32), List.of(a, b, c))));
            HostTensor u = Tensors.integers(arena, ElementType.UINT64, new long[] {-1L, 3}, 2);
            HostTensor v = Tensors.integers(arena, ElementType.UINT64, new long[] {4}, 1);
            assertArrayEquals(new long[] {-1L, 4}, Tensors.toLongs(run(arena, VariadicKernel.of("Max", ElementType.UINT64), List.of(u, v))));
        }
    }

    @Test
    void float16SumRoundsOnce() {
        try (Arena arena = Arena.ofConfined()) {
            // 2048 + 1 + 1: pairwise in float16 gives 2048 (each +1 rounds to even), once-rounded gives 2050
            List<HostTensor> inputs = List.of(Tensors.floats(arena, ElementType.FLOAT16, new double[] {2048}, 1),
                    Tensors.floats(arena, ElementType.FLOAT16, new double[] {1}, 1),
                    Tensors.floats(arena, ElementType.FLOAT16, new double[] {1}, 1));
            assertArrayEquals(new double[] {2050}, Tensors.toDoubles(run(arena, VariadicKernel.of("Sum", ElementType.FLOAT16), inputs)));
        }
    }

    @Test
    void shapesThatDoNotBroadcastAreNamed() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> VariadicKernel.of("Max", ElementType.FLOAT).outputShapes(new long[][] {{2, 3}, {3}, {4}}));
        assertEquals(true, e.getMessage().startsWith("Max: "), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> VariadicKernel.of("Sum", ElementType.INT32));
    }
}
