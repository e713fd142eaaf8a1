package dev.javaep.harness.onnx;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import java.util.List;
import java.util.Random;

/** The test model: x[batch,4] → MatMul → Add → Relu → MatMul → Add → Softmax → y[batch,3]. */
final class TwoLayerMlp {
    static final int IN = 4;
    static final int HIDDEN = 8;
    static final int OUT = 3;

    final float[] w1;
    final float[] b1;
    final float[] w2;
    final float[] b2;

    TwoLayerMlp(long seed) {
        Random random = new Random(seed);
        w1 = values(random, IN * HIDDEN);
        b1 = values(random, HIDDEN);
        w2 = values(random, HIDDEN * OUT);
        b2 = values(random, OUT);
    }

    OnnxModelWriter writer() {
        return new OnnxModelWriter("mlp")
                .input("x", ElementType.FLOAT, Dim.param("batch"), Dim.of(IN))
                .output("y", ElementType.FLOAT, Dim.param("batch"), Dim.of(OUT))
                .initializer("w1", w1, IN, HIDDEN)
                .initializer("b1", b1, HIDDEN)
                .initializer("w2", w2, HIDDEN, OUT)
                .initializer("b2", b2, OUT)
                .node("MatMul", List.of("x", "w1"), List.of("h1"))
                .node("Add", List.of("h1", "b1"), List.of("z1"))
                .node("Relu", List.of("z1"), List.of("a1"))
                .node("MatMul", List.of("a1", "w2"), List.of("h2"))
                .node("Add", List.of("h2", "b2"), List.of("z2"))
                .node("Softmax", List.of("z2"), List.of("y"), new Attribute.IntValue("axis", -1));
    }

    /** The model's function written out in plain Java, in double precision. */
    float[] reference(float[] x, int batch) {
        float[] y = new float[batch * OUT];
        for (int r = 0; r < batch; r++) {
            double[] hidden = new double[HIDDEN];
            for (int j = 0; j < HIDDEN; j++) {
                double s = b1[j];
                for (int i = 0; i < IN; i++) {
                    s += (double) x[r * IN + i] * w1[i * HIDDEN + j];
                }
                hidden[j] = Math.max(s, 0);
            }
            double[] logits = new double[OUT];
            double max = Double.NEGATIVE_INFINITY;
            for (int k = 0; k < OUT; k++) {
                double s = b2[k];
                for (int j = 0; j < HIDDEN; j++) {
                    s += hidden[j] * w2[j * OUT + k];
                }
                logits[k] = s;
                max = Math.max(max, s);
            }
            double sum = 0;
            for (int k = 0; k < OUT; k++) {
                sum += Math.exp(logits[k] - max);
            }
            for (int k = 0; k < OUT; k++) {
                y[r * OUT + k] = (float) (Math.exp(logits[k] - max) / sum);
            }
        }
        return y;
    }

    static float[] values(Random random, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = random.nextFloat() * 2 - 1;
        }
        return v;
    }
}
