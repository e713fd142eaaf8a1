package dev.javaep.cli.bench;

import dev.javaep.cuda.driver.CudaDeviceInfo;
import dev.javaep.cuda.driver.CudaDriver;
import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.harness.onnx.OnnxTensorData;
import dev.javaep.host.Allocator;
import dev.javaep.host.DeviceMemoryType;
import dev.javaep.host.EpDevice;
import dev.javaep.host.IoBinding;
import dev.javaep.host.MemoryInfo;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;

/**
 * ESPCN x2 on one 1080p RGB frame (Conv5x5 3→64, Tanh, Conv3x3 64→32, Tanh, Conv3x3 32→12, DepthToSpace 2) through
 * ORT + JavaCuda with device-resident I/O (IoBinding: the input copied to the device once, the output bound to device
 * memory, only Run timed; a Run ends synchronised), float32 and float16, with the direct kernels and with cuDNN
 * ({@code javaep.cuda.conv}), the latter unfused and launched eagerly, with each Conv's bias and Tanh fused into one
 * epilogue ({@code javaep.cuda.fusion}), and also replayed as a CUDA graph ({@code javaep.cuda.graphs}; all read when a
 * session compiles), next to PyTorch eager on the same GPU measured in the same
 * run by {@code tools/gpu/espcn_torch.py} (forward + synchronize per frame). Prints a Markdown table.
 */
public final class EspcnBenchmark {
    private static final String CUDA = "JavaCudaExecutionProvider";
    private static final int HEIGHT = 1080;
    private static final int WIDTH = 1920;
    private static final int FRAMES = 50;

    private EspcnBenchmark() {}

    /** {@code python} and {@code script} run PyTorch's side; a null script leaves its column empty. */
    public static void run(Path loaderLibrary, String python, Path script) throws Exception {
        CudaDriver driver = CudaDriver.load();
        CudaDeviceInfo info = driver.deviceInfo(0);
        OrtHost host = OrtHost.shared();
        Map<String, double[]> torch = new HashMap<>();
        String torchVersion = script == null ? "not run" : torch(python, script, torch);
        System.out.printf("ESPCN x2, 1080p RGB frame — %s (%d SMs), ONNX Runtime %s, %s %s; PyTorch: %s%n%n", info.name(),
                info.multiprocessorCount(), host.version(), System.getProperty("java.vm.name"),
                System.getProperty("java.version"), torchVersion);
        System.out.println("| type | JavaCuda direct kernels ms | JavaCuda cuDNN, unfused, eager ms | cuDNN + fused epilogues ms"
                + " | cuDNN + fused + CUDA graph ms | PyTorch eager ms | best / PyTorch | target ≤ 1.0× |");
        System.out.println("|---|---:|---:|---:|---:|---:|---:|---|");
        java.util.Properties saved = (java.util.Properties) System.getProperties().clone(); // median() sets three
        try (OrtEnvironment env = host.createEnvironment("javaep-espcn-bench", OrtHost.LogLevel.WARNING)) {
            env.registerExecutionProviderLibrary("javaep-espcn-bench", loaderLibrary);
            try {
                for (ElementType type : List.of(ElementType.FLOAT, ElementType.FLOAT16)) {
                    byte[] model = model(type);
                    double direct = median(env, model, type, "direct", "on", "on");
                    double unfused = median(env, model, type, "cudnn", "off", "off");
                    double fused = median(env, model, type, "cudnn", "on", "off");
                    double graph = median(env, model, type, "cudnn", "on", "on");
                    double best = Math.min(fused, graph);
                    double[] reference = torch.get(type == ElementType.FLOAT ? "float32" : "float16");
                    String ratio = reference == null ? "—" : String.format("%.2f×", best / reference[0]);
                    String met = reference == null ? "—" : best <= reference[0] ? "met" : "missed";
                    System.out.printf("| %s | %.2f | %.2f | %.2f | %.2f | %s | %s | %s |%n",
                            type == ElementType.FLOAT ? "float32" : "float16", direct, unfused, fused, graph,
                            reference == null ? "—" : String.format("%.2f", reference[0]), ratio, met);
                }
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-espcn-bench");
            }
        } finally {
            System.setProperties(saved);
        }
        System.out.println();
        System.out.println("Median of " + FRAMES + " frames after 5 warm-up Runs (the first compiles the kernels and times"
                + " cuDNN's algorithms); float32 convolutions may use TF32 on both sides (PyTorch's cudnn.allow_tf32 default).");
    }

    private static String torch(String python, Path script, Map<String, double[]> results) throws Exception {
        if (!Files.exists(script)) {
            return "script " + script + " not found";
        }
        Process process = new ProcessBuilder(python, script.toString(), Integer.toString(FRAMES)).redirectErrorStream(true).start();
        String version = "";
        List<String> lines = new ArrayList<>();
        try (BufferedReader reader = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = reader.readLine()) != null; ) {
                lines.add(line);
                String[] fields = line.strip().split("\\s+");
                if (line.startsWith("torch ")) {
                    version = line.strip();
                } else if (fields.length == 4 && fields[0].equals("espcn")) {
                    results.put(fields[1], new double[] {Double.parseDouble(fields[2]), Double.parseDouble(fields[3])});
                }
            }
        }
        int exit = process.waitFor();
        return exit == 0 ? version : "failed (exit " + exit + "): " + String.join(" / ", lines.subList(Math.max(0, lines.size() - 3), lines.size()));
    }

    /** The median frame with the convolution backend, fusion and graphs as given (properties read when the session compiles). */
    private static double median(OrtEnvironment env, byte[] model, ElementType type, String conv, String fusion, String graphs) {
        System.setProperty("javaep.cuda.conv", conv);
        System.setProperty("javaep.cuda.fusion", fusion);
        System.setProperty("javaep.cuda.graphs", graphs);
        EpDevice cuda = env.epDevice(CUDA);
        MemoryInfo deviceMemory = cuda.memoryInfo(DeviceMemoryType.DEFAULT).orElseThrow();
        long[] shape = {1, 3, HEIGHT, WIDTH};
        try (SessionOptions options = env.createSessionOptions()) {
            options.disableCpuEpFallback().appendExecutionProvider(List.of(cuda), Map.of());
            try (Session session = env.createSession(model, options);
                 Allocator allocator = session.allocator(deviceMemory);
                 OrtTensor hostInput = OrtTensor.fromHost(frame(type, shape));
                 OrtTensor deviceInput = OrtTensor.allocate(allocator, type, shape);
                 IoBinding binding = session.createIoBinding()) {
                env.copyTensors(List.of(hostInput), List.of(deviceInput), null);
                binding.bindInput("x", deviceInput).bindOutputToDevice("y", deviceMemory);
                return RunTimer.medianMillis(session, binding, 5, FRAMES);
            }
        }
    }

    private static TensorData frame(ElementType type, long[] shape) {
        Random random = new Random(2);
        int n = (int) Arrays.stream(shape).reduce(1, Math::multiplyExact);
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = random.nextFloat();
        }
        return type == ElementType.FLOAT ? TensorData.ofFloats(shape, values)
                : new TensorData(ElementType.FLOAT16, shape, halves(values));
    }

    /** The ESPCN x2 model in {@code type}, weights uniform in ±1/sqrt(fan-in) (PyTorch's default init), seeded. */
    static byte[] model(ElementType type) {
        Random random = new Random(1);
        OnnxModelWriter writer = new OnnxModelWriter("espcn_x2").opset(17)
                .input("x", type, Dim.of(1), Dim.of(3), Dim.of(HEIGHT), Dim.of(WIDTH))
                .output("y", type, Dim.of(1), Dim.of(3), Dim.of(2L * HEIGHT), Dim.of(2L * WIDTH));
        int[][] layers = {{3, 64, 5}, {64, 32, 3}, {32, 12, 3}};
        String input = "x";
        for (int l = 0; l < layers.length; l++) {
            int in = layers[l][0];
            int out = layers[l][1];
            int k = layers[l][2];
            float bound = (float) (1 / Math.sqrt(in * k * k));
            float[] w = new float[out * in * k * k];
            float[] b = new float[out];
            for (int i = 0; i < w.length; i++) {
                w[i] = (random.nextFloat() * 2 - 1) * bound;
            }
            for (int i = 0; i < b.length; i++) {
                b[i] = (random.nextFloat() * 2 - 1) * bound;
            }
            writer.initializer(tensor("w" + l, type, w, out, in, k, k)).initializer(tensor("b" + l, type, b, out));
            String conv = "conv" + l;
            long pad = k / 2;
            writer.node("Conv", List.of(input, "w" + l, "b" + l), List.of(conv),
                    new Attribute.IntList("pads", List.of(pad, pad, pad, pad)));
            if (l < layers.length - 1) {
                writer.node("Tanh", List.of(conv), List.of("act" + l));
                input = "act" + l;
            } else {
                writer.node("DepthToSpace", List.of(conv), List.of("y"), new Attribute.IntValue("blocksize", 2),
                        new Attribute.StringValue("mode", "CRD"));
            }
        }
        return writer.toByteArray();
    }

    private static OnnxTensorData tensor(String name, ElementType type, float[] values, long... dims) {
        if (type == ElementType.FLOAT) {
            ByteBuffer bytes = ByteBuffer.allocate(values.length * 4).order(ByteOrder.LITTLE_ENDIAN);
            for (float v : values) {
                bytes.putFloat(v);
            }
            return new OnnxTensorData(name, type, dims, bytes.array());
        }
        return new OnnxTensorData(name, type, dims, halves(values));
    }

    static byte[] halves(float[] values) {
        ByteBuffer bytes = ByteBuffer.allocate(values.length * 2).order(ByteOrder.LITTLE_ENDIAN);
        for (float v : values) {
            bytes.putShort(Float.floatToFloat16(v));
        }
        return bytes.array();
    }
}
