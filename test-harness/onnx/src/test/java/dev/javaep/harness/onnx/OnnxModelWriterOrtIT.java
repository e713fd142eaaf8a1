package dev.javaep.harness.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.TensorValue;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.FloatBuffer;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

/**
 * Loads a model {@link OnnxModelWriter} wrote into the real ONNX Runtime (its default CPU provider,
 * through onnxruntime4j) and checks the result against the model's function in plain Java: proof
 * that the bytes are a valid model meaning what the builder said.
 */
class OnnxModelWriterOrtIT {

    @Test
    void onnxRuntimeRunsTheMlpAndComputesWhatItDescribes() throws OrtException {
        TwoLayerMlp mlp = new TwoLayerMlp(3);
        int batch = 5;
        float[] x = TwoLayerMlp.values(new Random(4), batch * TwoLayerMlp.IN);
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions();
             OrtSession session = env.createSession(mlp.writer().toByteArray(), options);
             OnnxTensor input = OnnxTensor.createTensor(env, FloatBuffer.wrap(x), new long[] {batch, TwoLayerMlp.IN});
             OrtSession.Result result = session.run(Map.of("x", input))) {
            OnnxTensor y = (OnnxTensor) result.get("y").orElseThrow();
            assertArrayEquals(new long[] {batch, TwoLayerMlp.OUT}, y.getInfo().getShape());
            float[] actual = new float[batch * TwoLayerMlp.OUT];
            y.getFloatBuffer().get(actual);
            float[] expected = mlp.reference(x, batch);
            for (int i = 0; i < expected.length; i++) {
                assertEquals(expected[i], actual[i], 1e-5f, "y element " + i);
            }
        }
    }

    @Test
    void onnxRuntimeReadsTensorAndStringsAttributes() throws OrtException {
        // ConstantOfShape's value is a TENSOR attribute, LabelEncoder's keys_strings a STRINGS one.
        byte[] model = new OnnxModelWriter("attributes").opset(17).opset("ai.onnx.ml", 2)
                .input("shape", ElementType.INT64, Dim.of(2))
                .input("label", ElementType.STRING, Dim.of(3))
                .output("filled", ElementType.FLOAT, Dim.unknown(), Dim.unknown())
                .output("code", ElementType.INT64, Dim.of(3))
                .node("ConstantOfShape", List.of("shape"), List.of("filled"),
                        new Attribute.TensorAttribute("value", new TensorValue(
                                ElementType.FLOAT, new long[] {1},
                                ByteBuffer.allocate(4).order(ByteOrder.LITTLE_ENDIAN).putFloat(0, 2.5f))))
                .node(new OnnxNode("encode", "LabelEncoder", "ai.onnx.ml", List.of("label"), List.of("code"),
                        Map.of("keys_strings", new Attribute.StringList("keys_strings", List.of("a", "b")),
                                "values_int64s", new Attribute.IntList("values_int64s", List.of(10L, 20L)),
                                "default_int64", new Attribute.IntValue("default_int64", -1))))
                .toByteArray();
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        try (OrtSession.SessionOptions options = new OrtSession.SessionOptions();
             OrtSession session = env.createSession(model, options);
             OnnxTensor shape = OnnxTensor.createTensor(env, new long[] {2, 3});
             OnnxTensor label = OnnxTensor.createTensor(env, new String[] {"b", "z", "a"});
             OrtSession.Result result = session.run(Map.of("shape", shape, "label", label))) {
            OnnxTensor filled = (OnnxTensor) result.get("filled").orElseThrow();
            assertArrayEquals(new long[] {2, 3}, filled.getInfo().getShape());
            float[] values = new float[6];
            filled.getFloatBuffer().get(values);
            assertArrayEquals(new float[] {2.5f, 2.5f, 2.5f, 2.5f, 2.5f, 2.5f}, values);
            assertArrayEquals(new long[] {20, -1, 10}, (long[]) result.get("code").orElseThrow().getValue());
        }
    }
}
