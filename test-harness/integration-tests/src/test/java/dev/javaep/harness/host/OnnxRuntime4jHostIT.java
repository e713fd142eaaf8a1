package dev.javaep.harness.host;

import static org.junit.jupiter.api.Assertions.assertEquals;

import ai.onnxruntime.OnnxTensor;
import ai.onnxruntime.OrtEnvironment;
import ai.onnxruntime.OrtEpDevice;
import ai.onnxruntime.OrtException;
import ai.onnxruntime.OrtSession;
import dev.javaep.harness.TestPaths;
import java.nio.FloatBuffer;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The official Java API (onnxruntime4j, same Maven artifact) as the host: nothing of ours on the host side. */
class OnnxRuntime4jHostIT {

    @Test
    void onnxruntime4jRegistersJavaepAndRunsOnJavaCpu() throws OrtException {
        OrtEnvironment env = OrtEnvironment.getEnvironment();
        env.registerExecutionProviderLibrary("javaep-ort4j", TestPaths.loaderLibrary().toString());
        try {
            List<OrtEpDevice> devices = env.getEpDevices();
            OrtEpDevice device = devices.stream().filter(d -> d.getEpName().equals("JavaCpuExecutionProvider")).findFirst()
                    .orElseThrow(() -> new AssertionError("JavaCpuExecutionProvider not among " + devices));
            assertEquals("javaep", device.getEpVendor());

            long[] shape = {3, 4, 5};
            float[] x = new float[60];
            float[] y = new float[60];
            for (int i = 0; i < 60; i++) {
                x[i] = i * 0.25f;
                y[i] = 2 - i;
            }
            try (OrtSession.SessionOptions options = new OrtSession.SessionOptions()) {
                options.addConfigEntry("session.disable_cpu_ep_fallback", "1");
                options.addExecutionProvider(List.of(device), Map.of());
                try (OrtSession session = env.createSession(
                        TestPaths.nodeTest("test_add").resolve("model.onnx").toString(), options);
                     OnnxTensor xs = OnnxTensor.createTensor(env, FloatBuffer.wrap(x), shape);
                     OnnxTensor ys = OnnxTensor.createTensor(env, FloatBuffer.wrap(y), shape);
                     OrtSession.Result result = session.run(Map.of("x", xs, "y", ys))) {
                    float[] sum = ((OnnxTensor) result.get("sum").orElseThrow()).getFloatBuffer().array();
                    for (int i = 0; i < 60; i++) {
                        assertEquals(x[i] + y[i], sum[i], 1e-6f);
                    }
                }
            }
        } finally {
            env.unregisterExecutionProviderLibrary("javaep-ort4j");
        }
    }
}
