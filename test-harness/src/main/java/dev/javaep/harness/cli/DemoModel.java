package dev.javaep.harness.cli;

import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import java.util.List;
import java.util.Random;

/**
 * The demo's built-in model, made in memory: a two-layer MLP classifier,
 * {@code softmax(relu(x·W1 + b1)·W2 + b2)}, with fixed pseudo-random weights. Only ops
 * JavaCpuExecutionProvider runs (MatMul, Add, Relu, Gemm, Softmax).
 */
final class DemoModel {
    static final int FEATURES = 64;
    static final int HIDDEN = 128;
    static final int CLASSES = 10;

    private DemoModel() {}

    static byte[] mlp() {
        Random random = new Random(42);
        return new OnnxModelWriter("javaep_demo_mlp")
                .opset(17)
                .input("x", ElementType.FLOAT, Dim.param("batch"), Dim.of(FEATURES))
                .output("probabilities", ElementType.FLOAT, Dim.param("batch"), Dim.of(CLASSES))
                .initializer("W1", weights(random, FEATURES * HIDDEN, FEATURES), FEATURES, HIDDEN)
                .initializer("b1", weights(random, HIDDEN, 10), HIDDEN)
                .initializer("W2", weights(random, HIDDEN * CLASSES, HIDDEN), HIDDEN, CLASSES)
                .initializer("b2", weights(random, CLASSES, 10), CLASSES)
                .node("MatMul", List.of("x", "W1"), List.of("h0"))
                .node("Add", List.of("h0", "b1"), List.of("h1"))
                .node("Relu", List.of("h1"), List.of("h2"))
                .node("Gemm", List.of("h2", "W2", "b2"), List.of("logits"))
                .node("Softmax", List.of("logits"), List.of("probabilities"), new Attribute.IntValue("axis", -1))
                .toByteArray();
    }

    static float[] input(int batch) {
        Random random = new Random(7);
        float[] x = new float[batch * FEATURES];
        for (int i = 0; i < x.length; i++) {
            x[i] = (float) random.nextGaussian();
        }
        return x;
    }

    private static float[] weights(Random random, int count, int fanIn) {
        float scale = (float) Math.sqrt(2.0 / fanIn);
        float[] w = new float[count];
        for (int i = 0; i < count; i++) {
            w[i] = (float) random.nextGaussian() * scale;
        }
        return w;
    }
}
