package dev.javaep.harness.host;

import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.host.TensorData;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import java.util.List;
import java.util.Random;

/**
 * The model the binding tests run: x[batch,4] → MatMul → Add → Relu = hidden[batch,8] → MatMul → Add →
 * Softmax = y[batch,3]. Two outputs, so bindings hold more than one; only ops both ORT's CPU EP and
 * JavaCpuExecutionProvider run.
 */
final class BindingModel {
    static final int IN = 4;
    static final int HIDDEN = 8;
    static final int OUT = 3;

    private BindingModel() {}

    static byte[] bytes() {
        Random random = new Random(11);
        return new OnnxModelWriter("binding_mlp")
                .input("x", ElementType.FLOAT, Dim.param("batch"), Dim.of(IN))
                .output("hidden", ElementType.FLOAT, Dim.param("batch"), Dim.of(HIDDEN))
                .output("y", ElementType.FLOAT, Dim.param("batch"), Dim.of(OUT))
                .initializer("w1", values(random, IN * HIDDEN), IN, HIDDEN)
                .initializer("b1", values(random, HIDDEN), HIDDEN)
                .initializer("w2", values(random, HIDDEN * OUT), HIDDEN, OUT)
                .initializer("b2", values(random, OUT), OUT)
                .node("MatMul", List.of("x", "w1"), List.of("h1"))
                .node("Add", List.of("h1", "b1"), List.of("z1"))
                .node("Relu", List.of("z1"), List.of("hidden"))
                .node("MatMul", List.of("hidden", "w2"), List.of("h2"))
                .node("Add", List.of("h2", "b2"), List.of("z2"))
                .node("Softmax", List.of("z2"), List.of("y"), new Attribute.IntValue("axis", -1))
                .toByteArray();
    }

    static TensorData input(int batch, long seed) {
        return TensorData.ofFloats(new long[] {batch, IN}, values(new Random(seed), batch * IN));
    }

    private static float[] values(Random random, int n) {
        float[] v = new float[n];
        for (int i = 0; i < n; i++) {
            v[i] = random.nextFloat() * 2 - 1;
        }
        return v;
    }
}
