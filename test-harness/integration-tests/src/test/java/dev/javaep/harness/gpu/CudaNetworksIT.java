package dev.javaep.harness.gpu;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.conformance.ModelComparison;
import dev.javaep.harness.TestPaths;
import dev.javaep.harness.networks.ExportedNetworks;
import dev.javaep.harness.onnx.OnnxModelReader;
import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.TestFactory;

/**
 * The networks PyTorch exported ({@link ExportedNetworks}) on JavaCudaExecutionProvider with CPU fallback
 * disabled: float32 against ORT's CPU EP (ONNX's node-test tolerances), and each float16 twin against ORT CPU's
 * float32 run of the same weights, within {@value #HALF_TOLERANCE} of the output's largest magnitude (float16
 * keeps 11 significant bits; the kernels accumulate in float32).
 */
@Tag("gpu")
class CudaNetworksIT {
    static final double HALF_TOLERANCE = 0.03;

    private static OrtEnvironment env;

    @BeforeAll
    static void register() {
        env = OrtHost.shared().createEnvironment("javaep-cuda-networks", OrtHost.LogLevel.ERROR);
        env.registerExecutionProviderLibrary("javaep-cuda-networks", TestPaths.loaderLibrary());
    }

    @AfterAll
    static void unregister() {
        if (env != null) {
            env.unregisterExecutionProviderLibrary("javaep-cuda-networks");
            env.close();
        }
    }

    @TestFactory
    Stream<DynamicTest> float32NetworksMatchOrtCpu() {
        Path dir = ExportedNetworks.directory();
        return ExportedNetworks.cases().stream().map(c -> DynamicTest.dynamicTest(c.toString(), () -> {
            EpDevice device = CudaGpu.device(env);
            Path model = dir.resolve(c.file());
            ModelComparison.Result result = ModelComparison.run(env, device, model, ModelComparison.byPosition(model, c.shapes()));
            System.out.printf("float32 %s: max |JavaCuda - ORT CPU| = %.3g%n", c, result.maxAbsDifference());
            assertTrue(result.matches(), c + ": " + result.mismatches());
        }));
    }

    @TestFactory
    Stream<DynamicTest> float16TwinsMatchOrtCpuFloat32() {
        Path dir = ExportedNetworks.directory();
        return ExportedNetworks.cases().stream().filter(c -> c.float16Twin().isPresent())
                .map(c -> DynamicTest.dynamicTest(c.float16Twin().get() + " " + c, () -> {
                    EpDevice device = CudaGpu.device(env);
                    Path model = dir.resolve(c.file());
                    Map<String, TensorData> inputs = ModelComparison.randomInputs(OnnxModelReader.read(model),
                            ModelComparison.byPosition(model, c.shapes()));
                    Map<String, TensorData> reference;
                    try (SessionOptions options = env.createSessionOptions(); Session s = env.createSession(model, options)) {
                        reference = s.run(inputs);
                    }
                    Map<String, TensorData> halfInputs = new LinkedHashMap<>();
                    inputs.forEach((name, t) -> halfInputs.put(name, toHalf(t)));
                    Map<String, TensorData> actual;
                    try (SessionOptions options = env.createSessionOptions().disableCpuEpFallback()
                            .appendExecutionProvider(List.of(device), Map.of());
                         Session s = env.createSession(dir.resolve(c.float16Twin().get()), options)) {
                        actual = s.run(halfInputs);
                    }
                    for (var output : reference.entrySet()) {
                        float[] e = output.getValue().floats();
                        float[] a = fromHalf(actual.get(output.getKey()));
                        double scale = 0;
                        double worst = 0;
                        for (int i = 0; i < e.length; i++) {
                            scale = Math.max(scale, Math.abs(e[i]));
                            worst = Math.max(worst, Math.abs(e[i] - a[i]));
                        }
                        System.out.printf("float16 %s %s: max |JavaCuda fp16 - ORT CPU fp32| = %.3g (largest |output| %.3g)%n",
                                c.float16Twin().get(), output.getKey(), worst, scale);
                        assertTrue(e.length == a.length && worst <= HALF_TOLERANCE * Math.max(scale, 1e-3),
                                c.float16Twin().get() + " " + output.getKey() + ": max difference " + worst + " at scale " + scale);
                    }
                }));
    }

    private static TensorData toHalf(TensorData t) {
        if (t.elementType() != ElementType.FLOAT) {
            return t;
        }
        float[] f = t.floats();
        ByteBuffer b = ByteBuffer.allocate(f.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : f) {
            b.putShort(Float.floatToFloat16(v));
        }
        return new TensorData(ElementType.FLOAT16, t.shape(), b.array());
    }

    private static float[] fromHalf(TensorData t) {
        if (t.elementType() != ElementType.FLOAT16) {
            throw new AssertionError("the float16 twin's output is " + t.elementType());
        }
        ByteBuffer b = ByteBuffer.wrap(t.data()).order(ByteOrder.LITTLE_ENDIAN);
        float[] f = new float[Math.toIntExact(t.elementCount())];
        for (int i = 0; i < f.length; i++) {
            f[i] = Float.float16ToFloat(b.getShort(i * 2));
        }
        return f;
    }
}
