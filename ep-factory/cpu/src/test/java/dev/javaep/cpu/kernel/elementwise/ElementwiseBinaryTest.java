package dev.javaep.cpu.kernel.elementwise;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

class ElementwiseBinaryTest {

    /** Shape pairs covering the same-shape path, scalar paths on either side, and general broadcasting. */
    private static final long[][][] SHAPES = {
            {{2, 3, 4}, {2, 3, 4}},
            {{2, 3, 4}, {}},
            {{1}, {2, 3, 4}},
            {{3, 4}, {4}},
            {{4}, {3, 4}},
            {{3, 1}, {1, 5}},
            {{2, 1, 3, 1}, {4, 1, 6}},
            {{7}, {7}},
            {{0, 4}, {4}},
            {{}, {}},
    };

    private static ElementwiseBinary kernel(ArithmeticOp op, ElementType type) {
        return new ElementwiseBinary(op, type);
    }

    private static HostTensor run(Arena arena, ElementwiseBinary k, HostTensor a, HostTensor b) {
        long[] shape = k.outputShapes(new long[][] {a.shape(), b.shape()})[0];
        HostTensor y = TestTensors.misaligned(arena, k.elementType(), shape);
        k.compute(List.of(a, b), List.of(y));
        return y;
    }

    /**
     * Float32 and float64 against the operator in double: for +, -, * and / of two floats, the double result rounded
     * once to float is the float result (double carries more than twice float's precision), so one reference serves both.
     */
    @ParameterizedTest
    @EnumSource(value = ElementType.class, names = {"FLOAT", "DOUBLE"})
    void floatsMatchReference(ElementType type) {
        boolean f32 = type == ElementType.FLOAT;
        Random random = new Random(type.ordinal());
        try (Arena arena = Arena.ofConfined()) {
            for (ArithmeticOp op : ArithmeticOp.values()) {
                for (long[][] s : SHAPES) {
                    double[] av = random.doubles(Shapes.elementCount(s[0]), -2, 2).map(v -> f32 ? (float) v : v).toArray();
                    double[] bv = random.doubles(Shapes.elementCount(s[1]), -2, 2).map(v -> f32 ? (float) v : v).toArray();
                    HostTensor y = run(arena, kernel(op, type), tensor(arena, type, av, s[0]), tensor(arena, type, bv, s[1]));
                    long[] out = Broadcasting.multidirectional(s[0], s[1]);
                    double[] expected = new double[(int) Shapes.elementCount(out)];
                    for (int i = 0; i < expected.length; i++) {
                        double x = av[(int) TestTensors.broadcastSource(i, out, s[0])];
                        double z = bv[(int) TestTensors.broadcastSource(i, out, s[1])];
                        double e = switch (op) {
                            case ADD -> x + z;
                            case SUB -> x - z;
                            case MUL -> x * z;
                            case DIV -> x / z;
                        };
                        expected[i] = f32 ? (float) e : e;
                    }
                    double[] actual = f32 ? widen(TestTensors.toFloats(y)) : TestTensors.toDoubles(y);
                    assertArrayEquals(expected, actual, type + " " + op + " " + TestTensors.shape(s[0]) + " "
                            + TestTensors.shape(s[1]));
                }
            }
        }
    }

    private static HostTensor tensor(Arena arena, ElementType type, double[] values, long[] shape) {
        if (type == ElementType.DOUBLE) {
            return TestTensors.doubles(arena, values, shape);
        }
        float[] narrowed = new float[values.length];
        for (int i = 0; i < values.length; i++) {
            narrowed[i] = (float) values[i];
        }
        return TestTensors.floats(arena, narrowed, shape);
    }

    private static double[] widen(float[] values) {
        double[] wide = new double[values.length];
        for (int i = 0; i < values.length; i++) {
            wide[i] = values[i];
        }
        return wide;
    }

    @ParameterizedTest
    @EnumSource(value = ElementType.class, names = {"INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64"})
    void integersMatchReferenceForEveryOperator(ElementType type) {
        Random random = new Random(type.ordinal());
        try (Arena arena = Arena.ofConfined()) {
            for (ArithmeticOp op : ArithmeticOp.values()) {
                for (long[][] s : SHAPES) {
                    long[] av = random.longs(Shapes.elementCount(s[0])).toArray();
                    long[] bv = random.longs(Shapes.elementCount(s[1])).toArray();
                    HostTensor a = TestTensors.integers(arena, type, av, s[0]);
                    HostTensor b = TestTensors.integers(arena, type, bv, s[1]);
                    if (op == ArithmeticOp.DIV) {
                        for (long i = 0; i < b.elementCount(); i++) {
                            if (TestTensors.getInteger(b, i) == 0) {
                                TestTensors.setInteger(b, i, 3);
                            }
                        }
                    }
                    HostTensor y = run(arena, kernel(op, type), a, b);
                    long[] out = Broadcasting.multidirectional(s[0], s[1]);
                    for (int i = 0; i < y.elementCount(); i++) {
                        long x = TestTensors.getInteger(a, TestTensors.broadcastSource(i, out, s[0]));
                        long z = TestTensors.getInteger(b, TestTensors.broadcastSource(i, out, s[1]));
                        long expected = referenceInteger(op, type, x, z);
                        assertEquals(expected, TestTensors.getInteger(y, i),
                                type + " " + op + " " + x + ", " + z + " at " + i + " of " + TestTensors.shape(out));
                    }
                }
            }
        }
    }

    /** Exact integer arithmetic on the widened values, wrapped back to the type's width. */
    private static long referenceInteger(ArithmeticOp op, ElementType type, long x, long z) {
        boolean unsigned64 = type == ElementType.UINT64;
        long r = switch (op) {
            case ADD -> x + z;
            case SUB -> x - z;
            case MUL -> x * z;
            case DIV -> unsigned64 ? Long.divideUnsigned(x, z) : x / z; // widened values: exact for the rest
        };
        try (Arena arena = Arena.ofConfined()) {
            HostTensor wrap = TestTensors.misaligned(arena, type);
            TestTensors.setInteger(wrap, 0, r);
            return TestTensors.getInteger(wrap, 0);
        }
    }

    private static long[] compute1(ElementType type, ArithmeticOp op, long a, long b) {
        try (Arena arena = Arena.ofConfined()) {
            HostTensor y = run(arena, kernel(op, type),
                    TestTensors.integers(arena, type, new long[] {a}, 1),
                    TestTensors.integers(arena, type, new long[] {b}, 1));
            return TestTensors.toIntegers(y);
        }
    }

    @Test
    void signedDivisionTruncatesTowardZeroLikeC() {
        for (ElementType t : List.of(ElementType.INT8, ElementType.INT16, ElementType.INT32, ElementType.INT64)) {
            assertEquals(-3, compute1(t, ArithmeticOp.DIV, -7, 2)[0], t.toString());
            assertEquals(-3, compute1(t, ArithmeticOp.DIV, 7, -2)[0], t.toString());
            assertEquals(3, compute1(t, ArithmeticOp.DIV, -7, -2)[0], t.toString());
            assertEquals(0, compute1(t, ArithmeticOp.DIV, -1, 2)[0], t.toString());
        }
    }

    @Test
    void unsignedDivisionIsUnsigned() {
        assertEquals(66, compute1(ElementType.UINT8, ArithmeticOp.DIV, 200, 3)[0]);
        assertEquals(257, compute1(ElementType.UINT16, ArithmeticOp.DIV, 65535, 255)[0]);
        assertEquals(0x7FFF_FFFFL, compute1(ElementType.UINT32, ArithmeticOp.DIV, 0xFFFF_FFFFL, 2)[0]);
        assertEquals(Long.divideUnsigned(-1L, 3), compute1(ElementType.UINT64, ArithmeticOp.DIV, -1L, 3)[0]);
        assertEquals(6148914691236517205L, compute1(ElementType.UINT64, ArithmeticOp.DIV, -1L, 3)[0]);
    }

    @Test
    void integerArithmeticWraps() {
        assertEquals(44, compute1(ElementType.UINT8, ArithmeticOp.ADD, 200, 100)[0]);
        assertEquals(-56, compute1(ElementType.INT8, ArithmeticOp.ADD, 100, 100)[0]);
        assertEquals(65535, compute1(ElementType.UINT16, ArithmeticOp.SUB, 0, 1)[0]);
        assertEquals(0, compute1(ElementType.UINT32, ArithmeticOp.MUL, 0x10000, 0x10000)[0]);
    }

    @ParameterizedTest
    @EnumSource(value = ElementType.class, names = {"INT8", "INT16", "INT32", "INT64", "UINT8", "UINT16", "UINT32", "UINT64"})
    void integerDivisionByZeroThrowsAClearArithmeticException(ElementType type) {
        try (Arena arena = Arena.ofConfined()) {
            HostTensor a = TestTensors.integers(arena, type, new long[] {6, 7, 8}, 3);
            HostTensor b = TestTensors.integers(arena, type, new long[] {2, 0, 1}, 3);
            var e = assertThrows(ArithmeticException.class, () -> run(arena, kernel(ArithmeticOp.DIV, type), a, b));
            assertTrue(e.getMessage().contains("Div") && e.getMessage().contains("division by zero"), e.getMessage());
        }
    }

    @Test
    void floatDivisionByZeroFollowsIeee() {
        try (Arena arena = Arena.ofConfined()) {
            HostTensor y = run(arena, kernel(ArithmeticOp.DIV, ElementType.FLOAT),
                    TestTensors.floats(arena, new float[] {1, -1, 0}, 3), TestTensors.floats(arena, new float[] {0}, 1));
            float[] v = TestTensors.toFloats(y);
            assertEquals(Float.POSITIVE_INFINITY, v[0]);
            assertEquals(Float.NEGATIVE_INFINITY, v[1]);
            assertTrue(Float.isNaN(v[2]));
        }
    }

    @Test
    void incompatibleShapesAreRejected() {
        var e = assertThrows(IllegalArgumentException.class,
                () -> kernel(ArithmeticOp.ADD, ElementType.FLOAT).outputShapes(new long[][] {{2, 3}, {2}}));
        assertTrue(e.getMessage().startsWith("Add:"), e.getMessage());
    }

    @Test
    void anOutputOfTheWrongShapeIsRefusedBeforeAnyWrite() {
        try (Arena arena = Arena.ofConfined()) {
            HostTensor a = TestTensors.floats(arena, new float[6], 2, 3);
            HostTensor small = TestTensors.misaligned(arena, ElementType.FLOAT, 3);
            assertThrows(IllegalArgumentException.class,
                    () -> kernel(ArithmeticOp.ADD, ElementType.FLOAT).compute(List.of(a, a), List.of(small)));
        }
    }
}
