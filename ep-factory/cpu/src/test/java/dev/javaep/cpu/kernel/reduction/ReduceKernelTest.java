package dev.javaep.cpu.kernel.reduction;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ops.ReductionOps.ReduceAttributes;
import dev.javaep.spi.ops.ReductionOps.Reduction;
import java.lang.foreign.Arena;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class ReduceKernelTest {

    /** The kernel with axes as an attribute (opset < 18). */
    private static ReduceKernel attributeAxes(Reduction r, ElementType type, boolean keepdims, long... axes) {
        return new ReduceKernel(new ReduceAttributes(r, axes, keepdims, false), type);
    }

    /** The kernel with axes as input 1 (opset 18; ReduceSum 13). */
    private static ReduceKernel inputAxes(Reduction r, ElementType type, boolean keepdims, boolean noop) {
        return new ReduceKernel(new ReduceAttributes(r, null, keepdims, noop), type);
    }

    private static float[] run(ReduceKernel k, float[] x, long[] shape, long[] axesInput) {
        try (Arena arena = Arena.ofConfined()) {
            List<HostTensor> inputs = new ArrayList<>();
            inputs.add(TestTensors.floats(arena, x, shape));
            if (axesInput != null) {
                inputs.add(TestTensors.integers(arena, ElementType.INT64, axesInput, axesInput.length));
            }
            HostTensor out = TestTensors.misaligned(arena, ElementType.FLOAT, k.outputShapes(inputs)[0]);
            out.data().fill((byte) 0x7f);
            k.compute(inputs, List.of(out));
            return TestTensors.toFloats(out);
        }
    }

    /**
     * The textbook definition: each input element's coordinates, its output's index (reduced coordinates dropped),
     * the output's values listed, then the formula on the list, in double.
     */
    static double[] reference(Reduction r, float[] x, long[] shape, boolean[] reduced) {
        int rank = shape.length;
        long outputs = 1;
        for (int d = 0; d < rank; d++) {
            outputs *= reduced[d] ? 1 : shape[d];
        }
        List<List<Double>> groups = new ArrayList<>();
        for (int o = 0; o < outputs; o++) {
            groups.add(new ArrayList<>());
        }
        for (int i = 0; i < x.length; i++) {
            long rest = i;
            long out = 0;
            long stride = 1;
            for (int d = rank - 1; d >= 0; d--) {
                long c = rest % shape[d];
                rest /= shape[d];
                if (!reduced[d]) {
                    out += c * stride;
                    stride *= shape[d];
                }
            }
            groups.get((int) out).add((double) x[i]);
        }
        double[] y = new double[(int) outputs];
        for (int o = 0; o < outputs; o++) {
            List<Double> v = groups.get(o);
            y[o] = switch (r) {
                case SUM -> v.stream().mapToDouble(d -> d).sum();
                case MEAN -> v.stream().mapToDouble(d -> d).sum() / v.size();
                case MAX -> v.stream().mapToDouble(d -> d).max().orElse(Double.NEGATIVE_INFINITY);
                case MIN -> v.stream().mapToDouble(d -> d).min().orElse(Double.POSITIVE_INFINITY);
                case PROD -> v.stream().mapToDouble(d -> d).reduce(1, (a, b) -> a * b);
                case L1 -> v.stream().mapToDouble(Math::abs).sum();
                case L2 -> Math.sqrt(v.stream().mapToDouble(d -> d * d).sum());
                case SUM_SQUARE -> v.stream().mapToDouble(d -> d * d).sum();
                case LOG_SUM -> Math.log(v.stream().mapToDouble(d -> d).sum());
                case LOG_SUM_EXP -> Math.log(v.stream().mapToDouble(Math::exp).sum());
            };
        }
        return y;
    }

    private static boolean[] reducedOf(int rank, long... axes) {
        boolean[] reduced = new boolean[rank];
        if (axes.length == 0) {
            Arrays.fill(reduced, true);
        }
        for (long a : axes) {
            reduced[(int) (a < 0 ? a + rank : a)] = true;
        }
        return reduced;
    }

    private static void assertClose(double[] expected, float[] actual, String what) {
        assertEquals(expected.length, actual.length, what);
        for (int i = 0; i < expected.length; i++) {
            double tolerance = 1e-5 * Math.max(1, Math.abs(expected[i]));
            assertTrue(Math.abs(expected[i] - actual[i]) <= tolerance || (Double.isNaN(expected[i]) && Float.isNaN(actual[i])),
                    what + ": element " + i + " is " + actual[i] + ", expected " + expected[i]);
        }
    }

    @Test
    void everyReductionOverSeveralAxisSetsMatchesTheDefinition() {
        long[] shape = {2, 3, 4, 5};
        Random random = new Random(7);
        float[] x = new float[120];
        for (int i = 0; i < x.length; i++) {
            x[i] = 0.5f + random.nextFloat(); // positive, so LogSum is defined
        }
        long[][] axisSets = {{}, {0}, {1}, {3}, {-1}, {1, 2}, {2, 3}, {0, 2}, {1, 3}, {0, 1, 2, 3}, {0, 3}, {3, 0, -3}};
        for (Reduction r : Reduction.values()) {
            for (long[] axes : axisSets) {
                double[] expected = reference(r, x, shape, reducedOf(4, axes));
                String what = r + " axes " + Arrays.toString(axes);
                assertClose(expected, run(attributeAxes(r, ElementType.FLOAT, true, axes), x, shape, null), what);
                assertClose(expected, run(inputAxes(r, ElementType.FLOAT, false, false), x, shape, axes), what + " (input)");
            }
        }
    }

    @Test
    void keepdimsDecidesTheOutputRank() {
        ReduceKernel kept = attributeAxes(Reduction.SUM, ElementType.FLOAT, true, 1, -1);
        ReduceKernel dropped = attributeAxes(Reduction.SUM, ElementType.FLOAT, false, 1, -1);
        assertArrayEquals(new long[] {2, 1, 4, 1}, kept.outputShapes(new long[][] {{2, 3, 4, 5}})[0]);
        assertArrayEquals(new long[] {2, 4}, dropped.outputShapes(new long[][] {{2, 3, 4, 5}})[0]);
        assertArrayEquals(new long[] {}, attributeAxes(Reduction.MEAN, ElementType.FLOAT, false).outputShapes(new long[][] {{2, 3}})[0]);
        assertArrayEquals(new long[] {1, 1}, attributeAxes(Reduction.MEAN, ElementType.FLOAT, true).outputShapes(new long[][] {{2, 3}})[0]);
        assertArrayEquals(new long[] {}, attributeAxes(Reduction.MEAN, ElementType.FLOAT, true).outputShapes(new long[][] {{}})[0],
                "a scalar reduces to a scalar");
    }

    @Test
    void emptyAxesWithNoopAreTheElementwisePart() {
        float[] x = {1, -2, 3, 4};
        long[] shape = {2, 2};
        // ONNX 18: "ReduceLogSum returns the Log of input tensor, and ReduceSumSquare returns the Square"
        assertArrayEquals(new float[] {1, 4, 9, 16}, run(inputAxes(Reduction.SUM_SQUARE, ElementType.FLOAT, true, true), x, shape, new long[0]));
        assertArrayEquals(new float[] {1, 2, 3, 4}, run(inputAxes(Reduction.L2, ElementType.FLOAT, true, true), x, shape, null));
        assertArrayEquals(x, run(inputAxes(Reduction.SUM, ElementType.FLOAT, true, true), x, shape, null));
        assertArrayEquals(new float[] {6}, run(inputAxes(Reduction.SUM, ElementType.FLOAT, true, false), x, shape, new long[0]),
                "without noop, empty axes reduce everything");
        assertArrayEquals(new long[] {2, 2}, inputAxes(Reduction.SUM, ElementType.FLOAT, false, true).outputShapes(new long[][] {{2, 2}, {0}})[0]);
    }

    @Test
    void reducingNothingGivesEachOpsEmptyValue() {
        long[] shape = {2, 0, 4};
        float[] none = new float[0];
        assertArrayEquals(new float[] {0, 0, 0, 0, 0, 0, 0, 0}, run(attributeAxes(Reduction.SUM, ElementType.FLOAT, true, 1), none, shape, null));
        assertArrayEquals(new float[] {1, 1, 1, 1, 1, 1, 1, 1}, run(attributeAxes(Reduction.PROD, ElementType.FLOAT, false, 1), none, shape, null));
        float[] max = run(inputAxes(Reduction.MAX, ElementType.FLOAT, true, false), none, shape, new long[] {1});
        assertEquals(Float.NEGATIVE_INFINITY, max[0]);
        assertEquals(Float.POSITIVE_INFINITY, run(inputAxes(Reduction.MIN, ElementType.FLOAT, true, false), none, shape, new long[] {1})[7]);
        assertEquals(Float.NEGATIVE_INFINITY, run(inputAxes(Reduction.LOG_SUM_EXP, ElementType.FLOAT, true, false), none, shape, new long[] {1})[3]);
        assertEquals(Float.NEGATIVE_INFINITY, run(inputAxes(Reduction.LOG_SUM, ElementType.FLOAT, true, false), none, shape, new long[] {1})[3]);
        assertTrue(Float.isNaN(run(inputAxes(Reduction.MEAN, ElementType.FLOAT, true, false), none, shape, new long[] {1})[0]), "0/0");
        assertEquals(0, run(attributeAxes(Reduction.SUM, ElementType.FLOAT, true, 0), none, shape, null).length,
                "a non-reduced zero dimension: no outputs");
    }

    @Test
    void logSumExpDoesNotOverflow() {
        float[] x = {10000, 10000, -10000, 10001};
        float[] y = run(attributeAxes(Reduction.LOG_SUM_EXP, ElementType.FLOAT, false, 1), x, new long[] {2, 2}, null);
        assertEquals(10000 + Math.log(2), y[0], 1e-3);
        assertEquals(10001, y[1], 1e-3);
        float[] infinite = run(attributeAxes(Reduction.LOG_SUM_EXP, ElementType.FLOAT, false, 1),
                new float[] {Float.NEGATIVE_INFINITY, Float.NEGATIVE_INFINITY, Float.POSITIVE_INFINITY, 1}, new long[] {2, 2}, null);
        assertArrayEquals(new float[] {Float.NEGATIVE_INFINITY, Float.POSITIVE_INFINITY}, infinite);
    }

    @Test
    void axesOutOfRangeAreRejected() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> attributeAxes(Reduction.MEAN, ElementType.FLOAT, true, 2).outputShapes(new long[][] {{2, 3}}));
        assertTrue(e.getMessage().contains("axis 2"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> run(inputAxes(Reduction.MEAN, ElementType.FLOAT, true, false),
                new float[6], new long[] {2, 3}, new long[] {-3}));
    }

    @Test
    void float16AndDoubleAccumulateInDouble() {
        try (Arena arena = Arena.ofConfined()) {
            long[] shape = {3, 1000};
            HostTensor half = TestTensors.misaligned(arena, ElementType.FLOAT16, shape);
            double[] wide = new double[3000];
            for (int i = 0; i < 3000; i++) {
                half.data().setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i, Float.floatToFloat16(0.1f));
                wide[i] = 0.1;
            }
            ReduceKernel sum16 = attributeAxes(Reduction.SUM, ElementType.FLOAT16, false, 1);
            HostTensor y16 = TestTensors.misaligned(arena, ElementType.FLOAT16, 3);
            sum16.compute(List.of(half), List.of(y16));
            // 1000 float16 additions of 0.1 would stall at 256 or so; one rounding of the double sum gives 100.
            float tenthInHalf = Float.float16ToFloat(Float.floatToFloat16(0.1f));
            float expected = Float.float16ToFloat(Float.floatToFloat16(1000 * tenthInHalf));
            assertEquals(expected, Float.float16ToFloat(y16.data().getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, 2)));

            HostTensor doubles = TestTensors.doubles(arena, wide, shape);
            HostTensor y64 = TestTensors.misaligned(arena, ElementType.DOUBLE, 3, 1);
            attributeAxes(Reduction.MEAN, ElementType.DOUBLE, true, 1).compute(List.of(doubles), List.of(y64));
            assertArrayEquals(new double[] {0.1, 0.1, 0.1}, TestTensors.toDoubles(y64), 1e-13);
        }
    }

    @Test
    void integersWrapAndCompareAsTheirType() {
        try (Arena arena = Arena.ofConfined()) {
            HostTensor x = TestTensors.integers(arena, ElementType.INT32, new long[] {Integer.MAX_VALUE, 1, -5, 7}, 2, 2);
            HostTensor sum = TestTensors.misaligned(arena, ElementType.INT32, 2);
            attributeAxes(Reduction.SUM, ElementType.INT32, false, 1).compute(List.of(x), List.of(sum));
            assertArrayEquals(new long[] {Integer.MIN_VALUE, 2}, TestTensors.toIntegers(sum), "int32 addition wraps");

            HostTensor bytes = TestTensors.integers(arena, ElementType.UINT8, new long[] {200, 3, 100, 250}, 4);
            HostTensor max = TestTensors.misaligned(arena, ElementType.UINT8, 1);
            attributeAxes(Reduction.MAX, ElementType.UINT8, true).compute(List.of(bytes), List.of(max));
            assertArrayEquals(new long[] {250}, TestTensors.toIntegers(max), "uint8 compares unsigned");

            HostTensor bools = TestTensors.integers(arena, ElementType.BOOL, new long[] {0, 1, 0, 0}, 2, 2);
            HostTensor any = TestTensors.misaligned(arena, ElementType.BOOL, 2);
            inputAxes(Reduction.MAX, ElementType.BOOL, false, false).compute(List.of(bools,
                    TestTensors.integers(arena, ElementType.INT64, new long[] {1}, 1)), List.of(any));
            assertArrayEquals(new byte[] {1, 0}, any.data().toArray(ValueLayout.JAVA_BYTE), "ReduceMax of bool is any");

            HostTensor longs = TestTensors.integers(arena, ElementType.INT64, new long[] {3, -4, 5}, 3);
            HostTensor prod = TestTensors.misaligned(arena, ElementType.INT64);
            attributeAxes(Reduction.PROD, ElementType.INT64, false).compute(List.of(longs), List.of(prod));
            assertArrayEquals(new long[] {-60}, TestTensors.toIntegers(prod));

            HostTensor empty = TestTensors.misaligned(arena, ElementType.INT8, 2, 0);
            HostTensor min = TestTensors.misaligned(arena, ElementType.INT8, 2);
            attributeAxes(Reduction.MIN, ElementType.INT8, false, 1).compute(List.of(empty), List.of(min));
            assertArrayEquals(new long[] {127, 127}, TestTensors.toIntegers(min), "the empty ReduceMin is the type's maximum");
        }
    }

    @Test
    void longRowsAreReducedInPieces() {
        int n = 3 * 4096 + 17;
        float[] x = new float[2 * n];
        for (int i = 0; i < x.length; i++) {
            x[i] = (i % 7) - 3;
        }
        long[] shape = {2, n};
        assertClose(reference(Reduction.SUM, x, shape, reducedOf(2, 1)), run(attributeAxes(Reduction.SUM, ElementType.FLOAT, false, 1), x, shape, null), "rows");
        assertClose(reference(Reduction.MAX, x, shape, reducedOf(2, 0)), run(attributeAxes(Reduction.MAX, ElementType.FLOAT, false, 0), x, shape, null), "columns");
        assertEquals(Shapes.elementCount(new long[] {n}), run(attributeAxes(Reduction.MAX, ElementType.FLOAT, false, 0), x, shape, null).length);
    }
}
