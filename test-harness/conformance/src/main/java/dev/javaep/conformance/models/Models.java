package dev.javaep.conformance.models;

import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import java.util.List;
import java.util.Random;

/**
 * Models made in memory for the demo, the GPU tests and the benchmarks, using only javaep's op set.
 */
public final class Models {
    public static final int FEATURES = 64;
    public static final int HIDDEN = 128;
    public static final int CLASSES = 10;

    private Models() {}

    /**
     * The demo's two-layer MLP classifier, {@code softmax(relu(x·W1 + b1)·W2 + b2)} (MatMul, Add,
     * Relu, Gemm, Softmax), with fixed pseudo-random weights; input "x" [batch, 64], output
     * "probabilities" [batch, 10].
     */
    public static byte[] mlp() {
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

    /**
     * Normalize-and-scale of an RGBA float image, {@code (x - mean) · scale} per channel (Sub, Mul
     * with [4] constants broadcast over [height, width, 4]); input "image", output "normalized".
     */
    public static byte[] normalizeImage(int height, int width) {
        return new OnnxModelWriter("javaep_normalize_image")
                .opset(17)
                .input("image", ElementType.FLOAT, Dim.of(height), Dim.of(width), Dim.of(4))
                .output("normalized", ElementType.FLOAT, Dim.of(height), Dim.of(width), Dim.of(4))
                .initializer("mean", new float[] {0.485f, 0.456f, 0.406f, 0.5f}, 4)
                .initializer("scale", new float[] {1 / 0.229f, 1 / 0.224f, 1 / 0.225f, 2f}, 4)
                .node("Sub", List.of("image", "mean"), List.of("centered"))
                .node("Mul", List.of("centered", "scale"), List.of("normalized"))
                .toByteArray();
    }

    /** The MLP's input for {@code batch} rows, fixed pseudo-random values. */
    public static float[] mlpInput(int batch) {
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
