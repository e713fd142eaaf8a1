package dev.javaep.harness.onnx;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import java.nio.FloatBuffer;
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
}
