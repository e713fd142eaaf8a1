package dev.javaep.conformance;

import dev.javaep.harness.onnx.OnnxTensorData;
import dev.javaep.harness.onnx.TensorProtoReader;
import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.ElementType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * Runs ONNX node tests (a folder per test: {@code model.onnx} and {@code test_data_set_N/input_K.pb,
 * output_K.pb}) with every node on one EP and ORT's CPU fallback disabled, and compares outputs with
 * ONNX's default tolerances (rtol 1e-3, atol 1e-7; integers exact). Works for any plugin EP.
 */
public final class NodeTestRunner {
    private static final double RTOL = 1e-3;
    private static final double ATOL = 1e-7;

    private final OrtEnvironment env;
    private final EpDevice device;

    /** Runs node tests on {@code device}'s EP with ORT's CPU fallback disabled: every node is the EP's. */
    public NodeTestRunner(OrtEnvironment env, EpDevice device) {
        this.env = env;
        this.device = device;
    }

    /** Runs node tests on ORT's own CPU EP (the bar an EP is measured against: same files, same tolerances). */
    public static NodeTestRunner onOrtCpu(OrtEnvironment env) {
        return new NodeTestRunner(env, null);
    }

    private SessionOptions options() {
        return device == null ? env.createSessionOptions()
                : env.createSessionOptions().disableCpuEpFallback().appendExecutionProvider(List.of(device), Map.of());
    }

    public NodeTestResult run(Path testDir) {
        String name = testDir.getFileName().toString();
        Session session;
        try (SessionOptions options = options()) {
            session = env.createSession(testDir.resolve("model.onnx"), options);
        } catch (OrtException e) {
            return new NodeTestResult(name, NodeTestResult.Outcome.NOT_SUPPORTED, firstLine(e.getMessage()));
        }
        try (session) {
            List<String> failures = new ArrayList<>();
            try (Stream<Path> sets = Files.list(testDir)) {
                for (Path set : sets.filter(p -> p.getFileName().toString().startsWith("test_data_set_")).sorted().toList()) {
                    failures.addAll(runDataSet(session, set));
                }
            }
            return failures.isEmpty()
                    ? new NodeTestResult(name, NodeTestResult.Outcome.PASSED, "")
                    : new NodeTestResult(name, NodeTestResult.Outcome.FAILED, String.join("; ", failures));
        } catch (IOException | RuntimeException e) {
            return new NodeTestResult(name, NodeTestResult.Outcome.FAILED, firstLine(String.valueOf(e)));
        }
    }

    private List<String> runDataSet(Session session, Path set) throws IOException {
        Map<String, TensorData> inputs = new LinkedHashMap<>();
        for (int i = 0; i < session.inputNames().size(); i++) {
            Path file = set.resolve("input_" + i + ".pb");
            if (Files.exists(file)) {
                OnnxTensorData tensor = TensorProtoReader.read(file);
                inputs.put(session.inputNames().get(i), new TensorData(tensor.elementType(), tensor.dims(), tensor.data()));
            }
        }
        Map<String, TensorData> outputs = session.run(inputs);
        List<String> failures = new ArrayList<>();
        for (int i = 0; i < session.outputNames().size(); i++) {
            Path file = set.resolve("output_" + i + ".pb");
            if (!Files.exists(file)) {
                continue;
            }
            OnnxTensorData expected = TensorProtoReader.read(file);
            TensorData actual = outputs.get(session.outputNames().get(i));
            String mismatch = compare(expected, actual);
            if (mismatch != null) {
                failures.add(set.getFileName() + "/output_" + i + ": " + mismatch);
            }
        }
        return failures;
    }

    static String compare(OnnxTensorData expected, TensorData actual) {
        if (expected.elementType() != actual.elementType()) {
            return "type " + actual.elementType() + ", expected " + expected.elementType();
        }
        if (!Arrays.equals(expected.dims(), actual.shape())) {
            return "shape " + Arrays.toString(actual.shape()) + ", expected " + Arrays.toString(expected.dims());
        }
        ByteBuffer e = ByteBuffer.wrap(expected.data()).order(ByteOrder.LITTLE_ENDIAN);
        ByteBuffer a = ByteBuffer.wrap(actual.data()).order(ByteOrder.LITTLE_ENDIAN);
        ElementType type = expected.elementType();
        long n = actual.elementCount();
        for (int i = 0; i < n; i++) {
            if (type == ElementType.FLOAT || type == ElementType.DOUBLE) {
                double ev = type == ElementType.FLOAT ? e.getFloat(i * 4) : e.getDouble(i * 8);
                double av = type == ElementType.FLOAT ? a.getFloat(i * 4) : a.getDouble(i * 8);
                boolean bothNaN = Double.isNaN(ev) && Double.isNaN(av);
                // equal values pass first: the same infinity is a match, though inf - inf is NaN
                if (!bothNaN && av != ev && !(Math.abs(av - ev) <= ATOL + RTOL * Math.abs(ev))) {
                    return "element " + i + " is " + av + ", expected " + ev;
                }
            } else {
                int size = type.byteSize();
                for (int b = 0; b < size; b++) {
                    if (e.get(i * size + b) != a.get(i * size + b)) {
                        return "element " + i + " differs (" + type + ")";
                    }
                }
            }
        }
        return null;
    }

    private static String firstLine(String message) {
        if (message == null) {
            return "";
        }
        int newline = message.indexOf('\n');
        return newline < 0 ? message : message.substring(0, newline);
    }
}
