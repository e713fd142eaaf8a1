package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.TestTensors;
import dev.javaep.cpu.kernel.HostTensor;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import dev.javaep.spi.ElementType;
import java.lang.foreign.Arena;
import java.util.List;
import org.junit.jupiter.api.Test;

class ElementwiseUnaryTest {
    private static final float[] INPUT = {-1000f, -88.8f, -3f, -0.5f, -0f, 0f, 0.5f, 3f, 88.8f, 1000f,
            Float.NEGATIVE_INFINITY, Float.POSITIVE_INFINITY};

    private static float[] run(UnaryFunction f, float[] x) {
        try (Arena arena = Arena.ofConfined()) {
            var k = new ElementwiseUnary(f, ElementType.FLOAT);
            HostTensor in = TestTensors.floats(arena, x, 3, x.length / 3);
            HostTensor out = TestTensors.misaligned(arena, ElementType.FLOAT, k.outputShapes(new long[][] {in.shape()})[0]);
            k.compute(List.of(in), List.of(out));
            return TestTensors.toFloats(out);
        }
    }

    private static double[] run(UnaryFunction f, double[] x) {
        try (Arena arena = Arena.ofConfined()) {
            var k = new ElementwiseUnary(f, ElementType.DOUBLE);
            HostTensor in = TestTensors.doubles(arena, x, x.length);
            HostTensor out = TestTensors.misaligned(arena, ElementType.DOUBLE, x.length);
            k.compute(List.of(in), List.of(out));
            return TestTensors.toDoubles(out);
        }
    }

    @Test
    void reluClampsNegativesToZero() {
        float[] y = run(UnaryFunction.RELU, INPUT);
        for (int i = 0; i < INPUT.length; i++) {
            assertEquals(INPUT[i] > 0 ? INPUT[i] : 0f, y[i], "relu(" + INPUT[i] + ")");
        }
    }

    @Test
    void sigmoidIsFiniteAndCorrectForLargeMagnitudes() {
        float[] y = run(UnaryFunction.SIGMOID, INPUT);
        for (int i = 0; i < INPUT.length; i++) {
            assertFalse(Float.isNaN(y[i]), "sigmoid(" + INPUT[i] + ") is NaN");
            double expected = 1 / (1 + Math.exp(-(double) INPUT[i]));
            assertEquals(expected, y[i], 1e-7 + 1e-6 * expected, "sigmoid(" + INPUT[i] + ")");
        }
        assertEquals(0f, y[0]);
        assertEquals(1f, y[9]);
        assertEquals(0f, y[10]);
        assertEquals(1f, y[11]);
        assertEquals(0.5f, y[5]);
    }

    @Test
    void tanhMatchesMath() {
        float[] y = run(UnaryFunction.TANH, INPUT);
        for (int i = 0; i < INPUT.length; i++) {
            assertEquals((float) Math.tanh(INPUT[i]), y[i], "tanh(" + INPUT[i] + ")");
        }
    }

    @Test
    void float64Variants() {
        double[] x = {-800, -2, -0.25, 0, 0.25, 2, 800};
        double[] relu = run(UnaryFunction.RELU, x);
        double[] sigmoid = run(UnaryFunction.SIGMOID, x);
        double[] tanh = run(UnaryFunction.TANH, x);
        for (int i = 0; i < x.length; i++) {
            assertEquals(Math.max(x[i], 0), relu[i]);
            assertEquals(1 / (1 + Math.exp(-x[i])), sigmoid[i], 1e-15);
            assertEquals(Math.tanh(x[i]), tanh[i]);
        }
        assertArrayEquals(new double[] {0, 1}, new double[] {sigmoid[0], sigmoid[6]});
    }
}
