package dev.javaep.cpu.kernel.elementwise;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ops.ElementwiseOps;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.Random;
import java.util.function.DoubleBinaryOperator;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** The binary lane kernel against per-element Java references, on every broadcasting pattern. */
class BinaryKernelTest {
    /** Same shapes, scalars on either side, a trailing bias, stretched middles, an empty output. */
    private static final long[][][] SHAPES = {
            {{2, 3, 4}, {2, 3, 4}}, {{2, 3, 4}, {}}, {{1}, {2, 3, 4}}, {{3, 4}, {4}}, {{3, 1}, {1, 5}},
            {{2, 1, 3, 1}, {4, 1, 6}}, {{0, 4}, {4}}, {{}, {}}, {{3, 1200}, {1, 1200}}};

    private static HostTensor run(Arena arena, BinaryKernel k, HostTensor a, HostTensor b) {
        long[] shape = k.outputShapes(new long[][] {a.shape(), b.shape()})[0];
        HostTensor y = TestTensors.misaligned(arena, k.outputType(), shape);
        k.compute(List.of(a, b), List.of(y));
        return y;
    }

    /** Runs {@code op} on random float inputs of every shape pair and compares with {@code reference} per element. */
    private static void checkFloats(String op, BinaryMath f, ElementType type, DoubleBinaryOperator reference, boolean bool) {
        Random random = new Random(op.hashCode() + type.ordinal());
        try (Arena arena = Arena.ofConfined()) {
            for (long[][] s : SHAPES) {
                double[] av = values(random, Shapes.elementCount(s[0]), type);
                double[] bv = values(random, Shapes.elementCount(s[1]), type);
                if (s[0].length == 3 && s[1].length == 3) {
                    System.arraycopy(av, 0, bv, 0, 5); // some ties for the comparisons
                }
                BinaryKernel k = new BinaryKernel(op, f, type, type, bool ? ElementType.BOOL : type);
                HostTensor y = run(arena, k, Tensors.floats(arena, type, av, s[0]), Tensors.floats(arena, type, bv, s[1]));
                long[] out = ElementwiseOps.broadcastShape(s[0], s[1]);
                double[] got = bool ? null : Tensors.toDoubles(y);
                long[] gotBool = bool ? Tensors.toLongs(y) : null;
                for (int i = 0; i < Shapes.elementCount(out); i++) {
                    double x = av[(int) TestTensors.broadcastSource(i, out, s[0])];
                    double z = bv[(int) TestTensors.broadcastSource(i, out, s[1])];
                    String what = op + " " + type + " " + TestTensors.shape(s[0]) + TestTensors.shape(s[1]) + " element " + i;
                    if (bool) {
                        assertEquals((long) reference.applyAsDouble(x, z), gotBool[i], what);
                    } else {
                        assertEquals(Tensors.round(type, reference.applyAsDouble(x, z)), got[i], 0, what);
                    }
                }
            }
        }
    }

    /** Values exactly representable in {@code type}, so the reference sees what the kernel sees. */
    private static double[] values(Random random, long n, ElementType type) {
        double[] v = new double[(int) n];
        for (int i = 0; i < v.length; i++) {
            v[i] = Tensors.round(type, random.nextDouble() * 8 - 4);
        }
        return v;
    }

    @ParameterizedTest
    @EnumSource(value = ElementType.class, names = {"FLOAT", "FLOAT16", "DOUBLE"})
    void floatArithmeticAndComparisons(ElementType type) {
        checkFloats("Add", BinaryMath.ADD, type, Double::sum, false);
        checkFloats("Sub", BinaryMath.SUB, type, (x, z) -> x - z, false);
        checkFloats("Mul", BinaryMath.MUL, type, (x, z) -> x * z, false);
        checkFloats("Div", BinaryMath.DIV, type, (x, z) -> x / z, false);
        checkFloats("Max", BinaryMath.MAX, type, Math::max, false);
        checkFloats("Min", BinaryMath.MIN, type, Math::min, false);
        checkFloats("Mod", BinaryMath.FMOD, type, (x, z) -> x % z, false);
        checkFloats("Pow", BinaryMath.POW, type, (x, z) -> Math.pow(x, z), false);
        checkFloats("Equal", BinaryMath.EQUAL, type, (x, z) -> x == z ? 1 : 0, true);
        checkFloats("Less", BinaryMath.LESS, type, (x, z) -> x < z ? 1 : 0, true);
        checkFloats("Greater", BinaryMath.GREATER, type, (x, z) -> x > z ? 1 : 0, true);
        checkFloats("LessOrEqual", BinaryMath.LESS_OR_EQUAL, type, (x, z) -> x <= z ? 1 : 0, true);
        checkFloats("GreaterOrEqual", BinaryMath.GREATER_OR_EQUAL, type, (x, z) -> x >= z ? 1 : 0, true);
    }

    private static long[] runIntegers(BinaryMath f, ElementType type, long[] a, long[] aShape, long[] b, long[] bShape) {
        try (Arena arena = Arena.ofConfined()) {
            BinaryKernel k = new BinaryKernel(f.name(), f, type, type, f.yieldsBool() ? ElementType.BOOL : type);
            return Tensors.toLongs(run(arena, k, Tensors.integers(arena, type, a, aShape), Tensors.integers(arena, type, b, bShape)));
        }
    }

    @Test
    void integerModuloFollowsPythonAndFmodFollowsC() {
        long[] a = {7, -7, 7, -7, 6, 0};
        long[] b = {3, 3, -3, -3, 3, 5};
        for (ElementType t : List.of(ElementType.INT8, ElementType.INT32, ElementType.INT64)) {
            assertArrayEquals(new long[] {1, 2, -2, -1, 0, 0}, runIntegers(BinaryMath.MOD, t, a, new long[] {6}, b, new long[] {6}), t + " %");
            assertArrayEquals(new long[] {1, -1, 1, -1, 0, 0}, runIntegers(BinaryMath.FMOD, t, a, new long[] {6}, b, new long[] {6}), t + " fmod");
        }
        long big = -2; // 2^64 - 2 as uint64
        assertArrayEquals(new long[] {Long.remainderUnsigned(big, 10), 4},
                runIntegers(BinaryMath.MOD, ElementType.UINT64, new long[] {big, 9}, new long[] {2}, new long[] {10, 5}, new long[] {2}));
    }

    @Test
    void integerComparisonsMinMaxAndPReluBroadcast() {
        long[] a = {-5, 0, 5, 9};
        long[] b = {0, 5};
        long[] aShape = {2, 2};
        long[] bShape = {2};
        for (ElementType t : List.of(ElementType.INT16, ElementType.INT32, ElementType.INT64)) {
            assertArrayEquals(new long[] {1, 1, 0, 0}, runIntegers(BinaryMath.LESS, t, a, aShape, b, bShape));
            assertArrayEquals(new long[] {0, 0, 0, 0}, runIntegers(BinaryMath.EQUAL, t, a, aShape, b, bShape));
            assertArrayEquals(new long[] {0, 1, 1, 1}, runIntegers(BinaryMath.GREATER_OR_EQUAL, t, new long[] {-5, 5, 5, 9}, aShape, b, bShape));
            assertArrayEquals(new long[] {-5, 0, 0, 5}, runIntegers(BinaryMath.MIN, t, a, aShape, b, bShape));
            assertArrayEquals(new long[] {0, 5, 5, 9}, runIntegers(BinaryMath.MAX, t, a, aShape, b, bShape));
            assertArrayEquals(new long[] {0, 0, 5, 9}, runIntegers(BinaryMath.PRELU, t, a, aShape, b, bShape), "slope 0 then 5");
        }
        // uint64: the top bit is magnitude, not sign
        long top = Long.MIN_VALUE;
        assertArrayEquals(new long[] {0, 1}, runIntegers(BinaryMath.LESS, ElementType.UINT64, new long[] {top, 1}, new long[] {2},
                new long[] {1, top}, new long[] {2}));
        assertArrayEquals(new long[] {top, top}, runIntegers(BinaryMath.MAX, ElementType.UINT64, new long[] {top, 1}, new long[] {2},
                new long[] {1, top}, new long[] {2}));
    }

    @Test
    void logicOnBoolsWithBroadcasting() {
        long[] a = {0, 0, 1, 1};
        long[] b = {0, 1};
        assertArrayEquals(new long[] {0, 0, 0, 1}, runIntegers(BinaryMath.AND, ElementType.BOOL, a, new long[] {2, 2}, b, new long[] {2}));
        assertArrayEquals(new long[] {0, 1, 1, 1}, runIntegers(BinaryMath.OR, ElementType.BOOL, a, new long[] {2, 2}, b, new long[] {2}));
        assertArrayEquals(new long[] {0, 1, 1, 0}, runIntegers(BinaryMath.XOR, ElementType.BOOL, a, new long[] {2, 2}, b, new long[] {2}));
        assertArrayEquals(new long[] {1, 0, 0, 1}, runIntegers(BinaryMath.EQUAL, ElementType.BOOL, a, new long[] {2, 2}, b, new long[] {2}));
    }

    @Test
    void float16ArithmeticRoundsOnceLikeFloat32ThenHalf() {
        try (Arena arena = Arena.ofConfined()) {
            // 2049 is not a float16 (spacing 2 above 2048): 2048 + 1 rounds to even, 2048 + 3 to 2052
            BinaryKernel add = new BinaryKernel("Add", BinaryMath.ADD, ElementType.FLOAT16, ElementType.FLOAT16, ElementType.FLOAT16);
            HostTensor y = run(arena, add, Tensors.floats(arena, ElementType.FLOAT16, new double[] {2048, 2048, 65504}, 3),
                    Tensors.floats(arena, ElementType.FLOAT16, new double[] {1, 3, 65504}, 3));
            assertArrayEquals(new double[] {2048, 2052, Double.POSITIVE_INFINITY}, Tensors.toDoubles(y));
        }
    }

    @Test
    void powTakesItsExponentTypeAndTruncatesIntegerResults() {
        try (Arena arena = Arena.ofConfined()) {
            HostTensor base = Tensors.floats(arena, ElementType.FLOAT, new double[] {2, 3, 4}, 3);
            HostTensor exponent = Tensors.integers(arena, ElementType.INT64, new long[] {3, 2, -1}, 3);
            HostTensor y = run(arena, new BinaryKernel("Pow", BinaryMath.POW, ElementType.FLOAT, ElementType.INT64, ElementType.FLOAT), base, exponent);
            assertArrayEquals(new double[] {8, 9, 0.25}, Tensors.toDoubles(y));

            HostTensor intBase = Tensors.integers(arena, ElementType.INT32, new long[] {2, 3, 10}, 3);
            HostTensor floatExp = Tensors.floats(arena, ElementType.FLOAT, new double[] {0.5}, 1);
            HostTensor z = run(arena, new BinaryKernel("Pow", BinaryMath.POW, ElementType.INT32, ElementType.FLOAT, ElementType.INT32), intBase, floatExp);
            assertArrayEquals(new long[] {1, 1, 3}, Tensors.toLongs(z), "sqrt truncated toward zero");

            HostTensor intExp = Tensors.integers(arena, ElementType.INT32, new long[] {2, 3, 9}, 3);
            HostTensor w = run(arena, new BinaryKernel("Pow", BinaryMath.POW, ElementType.INT32, ElementType.INT32, ElementType.INT32), intBase, intExp);
            assertArrayEquals(new long[] {4, 27, 1_000_000_000}, Tensors.toLongs(w));
        }
    }

    @Test
    void preluSlopeMustBroadcastToX() {
        BinaryKernel prelu = new BinaryKernel("PRelu", BinaryMath.PRELU, ElementType.FLOAT, ElementType.FLOAT, ElementType.FLOAT);
        assertArrayEquals(new long[] {2, 3, 4, 5}, prelu.outputShapes(new long[][] {{2, 3, 4, 5}, {3, 1, 1}})[0]);
        var e = assertThrows(IllegalArgumentException.class, () -> prelu.outputShapes(new long[][] {{3, 1}, {3, 4}}));
        assertTrue(e.getMessage().contains("PRelu"), e.getMessage());
        try (Arena arena = Arena.ofConfined()) {
            HostTensor x = Tensors.floats(arena, ElementType.FLOAT, new double[] {-1, 2, -3, 4, -5, 6}, 1, 3, 2);
            HostTensor slope = Tensors.floats(arena, ElementType.FLOAT, new double[] {0.5, 2, 10}, 3, 1);
            assertArrayEquals(new double[] {-0.5, 2, -6, 4, -50, 6}, Tensors.toDoubles(run(arena, prelu, x, slope)));
        }
    }

    @Test
    void integerDivisionByZeroIsNamed() {
        var e = assertThrows(ArithmeticException.class,
                () -> runIntegers(BinaryMath.MOD, ElementType.INT32, new long[] {1}, new long[] {1}, new long[] {0}, new long[] {1}));
        assertTrue(e.getMessage().contains("division by zero"), e.getMessage());
    }

    @Test
    void typeCombinationsOutsideTheOpAreRejected() {
        assertThrows(IllegalArgumentException.class, () -> new BinaryKernel("Mod", BinaryMath.MOD, ElementType.FLOAT, ElementType.FLOAT, ElementType.FLOAT));
        assertThrows(IllegalArgumentException.class, () -> new BinaryKernel("And", BinaryMath.AND, ElementType.INT32, ElementType.INT32, ElementType.BOOL));
        assertThrows(IllegalArgumentException.class, () -> new BinaryKernel("Less", BinaryMath.LESS, ElementType.FLOAT, ElementType.FLOAT, ElementType.FLOAT));
        assertThrows(IllegalArgumentException.class, () -> new BinaryKernel("Add", BinaryMath.ADD, ElementType.FLOAT, ElementType.DOUBLE, ElementType.FLOAT));
        assertThrows(IllegalArgumentException.class, () -> new BinaryKernel("Add", BinaryMath.ADD, ElementType.BOOL, ElementType.BOOL, ElementType.BOOL));
    }
}
