package dev.javaep.harness.host;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.TestPaths;
import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * A Java host (our FFM binding of ORT's C API) in the same JVM as the EP: ORT dlopens libjavaep, which
 * finds this JVM already running and joins it.
 */
class JavaHostIT {

    @Test
    void registersTheLibraryJoinsThisJvmAndRunsAddOnJavaCpu() {
        OrtHost host = OrtHost.shared();
        try (OrtEnvironment env = host.createEnvironment("javaep-java-host", OrtHost.LogLevel.WARNING)) {
            env.registerExecutionProviderLibrary("javaep-java-host", TestPaths.loaderLibrary());
            try {
                EpDevice device = env.epDevice("JavaCpuExecutionProvider");
                assertEquals("javaep", device.epVendor());
                assertEquals("CPU", device.hardwareType());
                assertTrue(device.epMetadata().containsKey("version"), "ORT adds the factory version: " + device.epMetadata());

                float[] x = new float[60];
                float[] y = new float[60];
                for (int i = 0; i < 60; i++) {
                    x[i] = i * 0.5f;
                    y[i] = 1 - i;
                }
                long[] shape = {3, 4, 5};
                try (SessionOptions options = env.createSessionOptions().disableCpuEpFallback()
                        .appendExecutionProvider(List.of(device), Map.of());
                     Session session = env.createSession(TestPaths.nodeTest("test_add").resolve("model.onnx"), options)) {
                    Map<String, TensorData> out = session.run(Map.of("x", TensorData.ofFloats(shape, x), "y", TensorData.ofFloats(shape, y)));
                    float[] sum = out.get("sum").floats();
                    for (int i = 0; i < 60; i++) {
                        assertEquals(x[i] + y[i], sum[i], 1e-6f, "sum[" + i + "]");
                    }
                }
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-java-host");
            }
        }
    }
}
