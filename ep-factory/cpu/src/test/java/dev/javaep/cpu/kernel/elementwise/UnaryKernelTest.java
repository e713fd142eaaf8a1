package dev.javaep.cpu.kernel.elementwise;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.cpu.kernel.HostTensor;
import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ops.ElementwiseOps.Activation;
import java.lang.foreign.Arena;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.junit.jupiter.params.provider.ValueSource;

/** The unary lane kernel against values computed with Python's math module (float64), in float32, float16 and float64. */
class UnaryKernelTest {
    /** Inputs every float16 holds exactly (so all three types see the same x). */
    private static final double[] X = {-4.0, -1.5, -0.75, -0.125, 0.0, 0.25, 0.5, 1.0, 2.5, 6.0};
    /** Inputs of Log, Sqrt, Reciprocal. */
    private static final double[] POSITIVE = {0.125, 0.25, 0.5, 1.0, 1.5, 2.0, 3.0, 10.0, 100.0, 1000.0};
    /** f(x) from Python 3 (math.erf, math.expm1, ...; round() is half to even), activations with ONNX's default attributes. */
    private static final Map<String, double[]> EXPECTED = Map.ofEntries(
            Map.entry("Relu", new double[] {0.0, 0.0, 0.0, 0.0, 0.0, 0.25, 0.5, 1.0, 2.5, 6.0}),
            Map.entry("LeakyRelu", new double[] {-0.04, -0.015, -0.0075, -0.00125, 0.0, 0.25, 0.5, 1.0, 2.5, 6.0}),
            Map.entry("Elu", new double[] {-0.9816843611112658, -0.7768698398515702, -0.5276334472589853, -0.1175030974154046, 0.0, 0.25, 0.5, 1.0, 2.5, 6.0}),
            Map.entry("Selu", new double[] {-1.7258986335848916, -1.3658143576366601, -0.9276320187347418, -0.2065821187593042, 0.0, 0.2626752555370331, 0.5253505110740662, 1.0507010221481323, 2.626752555370331, 6.304206132888794}),
            Map.entry("Celu", new double[] {-0.9816843611112658, -0.7768698398515702, -0.5276334472589853, -0.1175030974154046, 0.0, 0.25, 0.5, 1.0, 2.5, 6.0}),
            Map.entry("HardSigmoid", new double[] {0.0, 0.19999999999999996, 0.35, 0.475, 0.5, 0.55, 0.6, 0.7, 1.0, 1.0}),
            Map.entry("HardSwish", new double[] {-0.0, -0.375, -0.28125, -0.059895833333333336, 0.0, 0.13541666666666666, 0.2916666666666667, 0.6666666666666666, 2.291666666666667, 6.0}),
            Map.entry("Gelu", new double[] {-0.00012668496733247991, -0.10021080190328713, -0.16997051428265114, -0.056282721896235885, 0.0, 0.14967658142073093, 0.34573123063700656, 0.8413447460685429, 2.4844758366855597, 5.999999994080474}),
            Map.entry("GeluTanh", new double[] {-7.024594819227126e-05, -0.10042842301976707, -0.17003944483437966, -0.05628280137577661, 0.0, 0.149675350701685, 0.34571400982514394, 0.8411919906082768, 2.484915733910001, 5.9999999999156035}),
            Map.entry("Softplus", new double[] {0.018149927917809738, 0.2014132779827524, 0.38687100611489994, 0.6325990353171691, 0.6931471805599453, 0.8259394198788436, 0.9740769841801067, 1.3132616875182228, 2.5788897342925496, 6.00247568513773}),
            Map.entry("Softsign", new double[] {-0.8, -0.6, -0.42857142857142855, -0.1111111111111111, 0.0, 0.2, 0.3333333333333333, 0.5, 0.7142857142857143, 0.8571428571428571}),
            Map.entry("Mish", new double[] {-0.07259174079202535, -0.29809974216680674, -0.27649471450546514, -0.06997990718000248, 0.0, 0.1695724096638176, 0.3752452113048951, 0.8650983882673103, 2.471392304557881, 5.999926634065252}),
            Map.entry("Sigmoid", new double[] {0.01798620996209156, 0.18242552380635635, 0.320821300824607, 0.46879062662624377, 0.5, 0.5621765008857981, 0.6224593312018546, 0.7310585786300049, 0.9241418199787566, 0.9975273768433653}),
            Map.entry("Tanh", new double[] {-0.999329299739067, -0.9051482536448664, -0.6351489523872873, -0.1243530017715962, 0.0, 0.24491866240370913, 0.46211715726000974, 0.7615941559557649, 0.9866142981514303, 0.9999877116507956}),
            Map.entry("Exp", new double[] {0.01831563888873418, 0.22313016014842982, 0.4723665527410147, 0.8824969025845955, 1.0, 1.2840254166877414, 1.6487212707001282, 2.718281828459045, 12.182493960703473, 403.4287934927351}),
            Map.entry("Floor", new double[] {-4.0, -2.0, -1.0, -1.0, 0.0, 0.0, 0.0, 1.0, 2.0, 6.0}),
            Map.entry("Ceil", new double[] {-4.0, -1.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 3.0, 6.0}),
            Map.entry("Neg", new double[] {4.0, 1.5, 0.75, 0.125, -0.0, -0.25, -0.5, -1.0, -2.5, -6.0}),
            Map.entry("Abs", new double[] {4.0, 1.5, 0.75, 0.125, 0.0, 0.25, 0.5, 1.0, 2.5, 6.0}),
            Map.entry("Sign", new double[] {-1.0, -1.0, -1.0, -1.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0}),
            Map.entry("Erf", new double[] {-0.9999999845827421, -0.9661051464753108, -0.7111556336535151, -0.1403162048013338, 0.0, 0.2763263901682369, 0.5204998778130465, 0.8427007929497149, 0.999593047982555, 1.0}),
            Map.entry("Sin", new double[] {0.7568024953079282, -0.9974949866040544, -0.6816387600233341, -0.12467473338522769, 0.0, 0.24740395925452294, 0.479425538604203, 0.8414709848078965, 0.5984721441039565, -0.27941549819892586}),
            Map.entry("Cos", new double[] {-0.6536436208636119, 0.0707372016677029, 0.7316888688738209, 0.992197667229329, 1.0, 0.9689124217106447, 0.8775825618903728, 0.5403023058681398, -0.8011436155469337, 0.960170286650366}),
            Map.entry("Round", new double[] {-4.0, -2.0, -1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 6.0}),
            Map.entry("Log", new double[] {-2.0794415416798357, -1.3862943611198906, -0.6931471805599453, 0.0, 0.4054651081081644, 0.6931471805599453, 1.0986122886681098, 2.302585092994046, 4.605170185988092, 6.907755278982137}),
            Map.entry("Sqrt", new double[] {0.3535533905932738, 0.5, 0.7071067811865476, 1.0, 1.224744871391589, 1.4142135623730951, 1.7320508075688772, 3.1622776601683795, 10.0, 31.622776601683793}),
            Map.entry("Reciprocal", new double[] {8.0, 4.0, 2.0, 1.0, 0.6666666666666666, 0.5, 0.3333333333333333, 0.1, 0.01, 0.001})
    );

    private static double[] run(UnaryMath f, ElementType type, double[] x, Activation p) {
        try (Arena arena = Arena.ofConfined()) {
            UnaryKernel k = new UnaryKernel(f.name(), f, p, type);
            HostTensor in = Tensors.floats(arena, type, x, 2, x.length / 2);
            HostTensor out = TestTensors.misaligned(arena, type, k.outputShapes(new long[][] {in.shape()})[0]);
            k.compute(List.of(in), List.of(out));
            return Tensors.toDoubles(out);
        }
    }

    private static Activation defaults(String op) {
        return switch (op) {
            case "LeakyRelu" -> new Activation(0.01f, 0, 0);
            case "Elu", "Celu" -> new Activation(1, 0, 0);
            case "Selu" -> new Activation(Activation.SELU_ALPHA, 0, Activation.SELU_GAMMA);
            case "HardSigmoid" -> new Activation(0.2f, 0.5f, 0);
            default -> new Activation(0, 0, 0);
        };
    }

    /** Within one unit in the last place of float32 or float16 (float attributes like 0.01f are not the decimal 0.01). */
    private static void assertClose(ElementType type, double expected, double actual, String what) {
        double ulp = switch (type) {
            case FLOAT -> Math.ulp((float) expected);
            case FLOAT16 -> Math.max(Math.ulp((float) expected) * 8192, 0x1p-24);
            default -> 1e-7 * Math.abs(expected) + 1e-15; // float64 with float32 attributes (0.2f is not 0.2)
        };
        assertEquals(expected, actual, ulp, what);
    }

    @ParameterizedTest
    @EnumSource(value = ElementType.class, names = {"FLOAT", "FLOAT16", "DOUBLE"})
    void everyFloatFunctionMatchesTheReference(ElementType type) {
        for (Map.Entry<String, double[]> e : EXPECTED.entrySet()) {
            String op = e.getKey();
            boolean positive = op.equals("Log") || op.equals("Sqrt") || op.equals("Reciprocal");
            double[] x = positive ? POSITIVE : X;
            UnaryMath f = op.equals("GeluTanh") ? UnaryMath.GELU_TANH : UnaryMath.of(op, false);
            double[] y = run(f, type, x, defaults(op));
            for (int i = 0; i < x.length; i++) {
                assertClose(type, Tensors.round(type, e.getValue()[i]), y[i], op + "(" + x[i] + ") in " + type);
            }
        }
    }

    @Test
    void roundIsHalfToEvenAndSignKeepsNaN() {
        double[] y = run(UnaryMath.ROUND, ElementType.FLOAT, new double[] {0.5, 1.5, 2.5, -0.5, -2.5, 2.4999}, new Activation(0, 0, 0));
        assertArrayEquals(new double[] {0, 2, 2, -0.0, -2, 2}, y);
        double[] s = run(UnaryMath.SIGN, ElementType.FLOAT16, new double[] {Double.NaN, -3, 0, 7}, new Activation(0, 0, 0));
        assertTrue(Double.isNaN(s[0]));
        assertArrayEquals(new double[] {-1, 0, 1}, java.util.Arrays.copyOfRange(s, 1, 4));
    }

    @Test
    void erfIsAccurateAcrossItsTwoMethods() {
        // Python's math.erf at points on both sides of |x| = 2.5, where the series hands over to the continued fraction.
        double[] x = {-3.0, -1.5, -0.7, -0.1, 0.0, 1e-06, 0.3, 0.9, 1.7, 2.6, 3.9, 5.5};
        double[] erf = {-0.9999779095030014, -0.9661051464753108, -0.6778011938374184, -0.1124629160182849, 0.0,
                1.1283791670951364e-06, 0.3286267594591274, 0.7969082124228322, 0.9837904585907745, 0.9997639655834707,
                0.9999999652077514, 0.9999999999999927};
        for (int i = 0; i < x.length; i++) {
            assertEquals(erf[i], UnaryMath.erf(x[i]), 1e-14 * Math.abs(erf[i]) + 1e-300, "erf(" + x[i] + ")");
        }
        assertEquals(1.0, UnaryMath.erf(40));
        assertTrue(Double.isNaN(UnaryMath.erf(Double.NaN)));
    }

    @Test
    void softplusAndSigmoidStayFiniteForLargeMagnitudes() {
        double[] y = run(UnaryMath.SOFTPLUS, ElementType.FLOAT, new double[] {-1000, 1000}, new Activation(0, 0, 0));
        assertArrayEquals(new double[] {0, 1000}, y);
        double[] m = run(UnaryMath.MISH, ElementType.FLOAT, new double[] {-1000, 1000}, new Activation(0, 0, 0));
        assertArrayEquals(new double[] {-0.0, 1000}, m);
    }

    @Test
    void attributesReachTheFormula() {
        double[] y = run(UnaryMath.LEAKY_RELU, ElementType.FLOAT, new double[] {-2, 3}, new Activation(0.5f, 0, 0));
        assertArrayEquals(new double[] {-1, 3}, y);
        double[] h = run(UnaryMath.HARD_SIGMOID, ElementType.FLOAT, new double[] {-1, 0, 1, 10}, new Activation(0.25f, 0.25f, 0));
        assertArrayEquals(new double[] {0, 0.25, 0.5, 1}, h);
        double[] c = run(UnaryMath.CELU, ElementType.FLOAT, new double[] {-1, 2}, new Activation(2, 0, 0));
        assertEquals(2 * Math.expm1(-0.5), c[0], 1e-7);
        assertEquals(2, c[1]);
    }

    @ParameterizedTest
    @ValueSource(strings = {"INT8", "INT16", "INT32", "INT64"})
    void signedIntegerFunctionsWrapAsC(String name) {
        ElementType type = ElementType.valueOf(name);
        long min = switch (type) {
            case INT8 -> Byte.MIN_VALUE;
            case INT16 -> Short.MIN_VALUE;
            case INT32 -> Integer.MIN_VALUE;
            default -> Long.MIN_VALUE;
        };
        long[] x = {min, -7, -1, 0, 1, 42};
        assertArrayEquals(new long[] {min, 7, 1, 0, 1, 42}, runIntegers(UnaryMath.ABS, type, x), "Abs: |min| wraps to min");
        assertArrayEquals(new long[] {min, 7, 1, 0, -1, -42}, runIntegers(UnaryMath.NEG, type, x));
        assertArrayEquals(new long[] {-1, -1, -1, 0, 1, 1}, runIntegers(UnaryMath.SIGN, type, x));
        assertArrayEquals(new long[] {0, 0, 0, 0, 1, 42}, runIntegers(UnaryMath.RELU, type, x));
    }

    @Test
    void unsignedAbsIsTheIdentityAndSignIsZeroOrOne() {
        long[] x = {-1L, Long.MIN_VALUE, 0, 5};
        assertArrayEquals(x, runIntegers(UnaryMath.ABS, ElementType.UINT64, x));
        assertArrayEquals(new long[] {1, 1, 0, 1}, runIntegers(UnaryMath.SIGN, ElementType.UINT64, x));
        assertArrayEquals(new long[] {255, 128, 0, 5}, runIntegers(UnaryMath.ABS, ElementType.UINT8, new long[] {255, 128, 0, 5}));
        assertArrayEquals(new long[] {1, 1, 0, 1}, runIntegers(UnaryMath.SIGN, ElementType.UINT8, new long[] {255, 128, 0, 5}));
    }

    @Test
    void notFlipsBools() {
        assertArrayEquals(new long[] {1, 0, 0, 1}, runIntegers(UnaryMath.NOT, ElementType.BOOL, new long[] {0, 1, 1, 0}));
    }

    @Test
    void chunkBoundariesAreSeamless() {
        int n = Lanes.CHUNK * 2 + 38;
        double[] x = new double[n];
        for (int i = 0; i < n; i++) {
            x[i] = i * 0.01 - 10;
        }
        double[] y = run(UnaryMath.EXP, ElementType.FLOAT, x, new Activation(0, 0, 0));
        for (int i = 0; i < n; i++) {
            assertEquals((float) Math.exp((float) x[i]), y[i], Math.ulp((float) Math.exp((float) x[i])), "element " + i);
        }
    }

    @Test
    void functionsAreDeclinedForTypesTheyAreNotDefinedOn() {
        Activation p = new Activation(0, 0, 0);
        assertThrows(IllegalArgumentException.class, () -> new UnaryKernel("Exp", UnaryMath.EXP, p, ElementType.INT32));
        assertThrows(IllegalArgumentException.class, () -> new UnaryKernel("Not", UnaryMath.NOT, p, ElementType.FLOAT));
        assertThrows(IllegalArgumentException.class, () -> new UnaryKernel("Abs", UnaryMath.ABS, p, ElementType.BOOL));
        assertThrows(IllegalArgumentException.class, () -> new UnaryKernel("Exp", UnaryMath.EXP, p, ElementType.BFLOAT16));
    }

    private static long[] runIntegers(UnaryMath f, ElementType type, long[] x) {
        try (Arena arena = Arena.ofConfined()) {
            UnaryKernel k = new UnaryKernel(f.name(), f, new Activation(0, 0, 0), type);
            HostTensor in = Tensors.integers(arena, type, x, x.length);
            HostTensor out = TestTensors.misaligned(arena, type, x.length);
            k.compute(List.of(in), List.of(out));
            return Tensors.toLongs(out);
        }
    }
}
