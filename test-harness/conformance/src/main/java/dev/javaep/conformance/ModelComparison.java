package dev.javaep.conformance;

import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModel;
import dev.javaep.harness.onnx.OnnxModelReader;
import dev.javaep.harness.onnx.OnnxTensorData;
import dev.javaep.harness.onnx.OnnxValueInfo;
import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Runs one model on an EP with ORT's CPU fallback disabled and on ORT's own CPU EP, with the same seeded
 * random inputs, and compares every output (ONNX's node-test tolerances, {@link NodeTestRunner#compare}).
 * Symbolic or unknown input dimensions are taken as {@value #SYMBOLIC_DIM}.
 */
public final class ModelComparison {
    static final long SYMBOLIC_DIM = 2;
    private static final long SEED = 20_251_124L;

    /** The outcome: each output's mismatch, if any, and how far apart the float outputs are. */
    public record Result(Map<String, TensorData> inputs, List<String> mismatches, double maxAbsDifference) {
        public boolean matches() {
            return mismatches.isEmpty();
        }
    }

    private ModelComparison() {}

    public static Result run(OrtEnvironment env, EpDevice device, Path model) throws IOException {
        return run(env, device, model, Map.of());
    }

    /** As {@link #run(OrtEnvironment, EpDevice, Path)}, with the inputs named in {@code inputShapes} of those shapes. */
    public static Result run(OrtEnvironment env, EpDevice device, Path model, Map<String, long[]> inputShapes)
            throws IOException {
        Map<String, TensorData> inputs = randomInputs(OnnxModelReader.read(model), inputShapes);
        try (SessionOptions onEp = env.createSessionOptions().disableCpuEpFallback()
                .appendExecutionProvider(List.of(device), Map.of());
             SessionOptions onOrtCpu = env.createSessionOptions();
             Session epSession = env.createSession(model, onEp);
             Session ortSession = env.createSession(model, onOrtCpu)) {
            return compare(inputs, epSession.run(inputs), ortSession.run(inputs));
        }
    }

    /** Compares {@code actual} with {@code reference} (ORT's CPU EP's outputs for {@code inputs}), output by output. */
    public static Result compare(Map<String, TensorData> inputs, Map<String, TensorData> actual,
                                 Map<String, TensorData> reference) {
        List<String> mismatches = new ArrayList<>();
        double maxDiff = 0;
        for (var output : reference.entrySet()) {
            TensorData expected = output.getValue();
            TensorData got = actual.get(output.getKey());
            String mismatch = got == null ? "missing" : NodeTestRunner.compare(
                    new OnnxTensorData(output.getKey(), expected.elementType(), expected.shape(), expected.data()), got);
            if (mismatch != null) {
                mismatches.add(output.getKey() + ": " + mismatch);
            } else if (expected.elementType() == ElementType.FLOAT) {
                float[] e = expected.floats();
                float[] a = got.floats();
                for (int i = 0; i < e.length; i++) {
                    maxDiff = Math.max(maxDiff, Math.abs(e[i] - a[i]));
                }
            }
        }
        return new Result(inputs, List.copyOf(mismatches), maxDiff);
    }

    /**
     * Shapes given by input position ({@code "#0"}, {@code "#1"}, in the order of the model's graph inputs that
     * are not initializers) keyed by the inputs' names instead.
     */
    public static Map<String, long[]> byPosition(Path model, Map<String, long[]> shapesByPosition) throws IOException {
        OnnxModel onnx = OnnxModelReader.read(model);
        Set<String> initializers = onnx.graph().initializers().stream().map(OnnxTensorData::name)
                .collect(Collectors.toSet());
        List<String> names = onnx.graph().inputs().stream().map(OnnxValueInfo::name)
                .filter(n -> !initializers.contains(n)).toList();
        Map<String, long[]> byName = new LinkedHashMap<>();
        shapesByPosition.forEach((key, shape) -> byName.put(
                key.startsWith("#") ? names.get(Integer.parseInt(key.substring(1))) : key, shape));
        return byName;
    }

    /**
     * Seeded random values for every graph input that is not an initializer, of the shape {@code inputShapes} names
     * for it, else its declared shape with symbolic dimensions as {@value #SYMBOLIC_DIM}.
     */
    public static Map<String, TensorData> randomInputs(OnnxModel model, Map<String, long[]> inputShapes) {
        Set<String> initializers = model.graph().initializers().stream().map(OnnxTensorData::name)
                .collect(Collectors.toSet());
        Random random = new Random(SEED);
        Map<String, TensorData> inputs = new LinkedHashMap<>();
        for (OnnxValueInfo input : model.graph().inputs()) {
            if (initializers.contains(input.name())) {
                continue;
            }
            if (!input.isTensor() || input.shape() == null) {
                throw new IllegalArgumentException("input " + input.name()
                        + " is not a tensor of known rank; compare feeds tensors only");
            }
            long[] shape = inputShapes.containsKey(input.name()) ? inputShapes.get(input.name()) : input.shape().stream()
                    .mapToLong(d -> d instanceof Dim.Value(long size) ? size : SYMBOLIC_DIM).toArray();
            inputs.put(input.name(), random(input.name(), input.elementType(), shape, random));
        }
        return inputs;
    }

    private static TensorData random(String name, ElementType type, long[] shape, Random random) {
        long count = 1;
        for (long d : shape) {
            count = Math.multiplyExact(count, d);
        }
        ByteBuffer data = ByteBuffer.allocate(Math.toIntExact(count * Math.max(type.byteSize(), 0)))
                .order(ByteOrder.LITTLE_ENDIAN);
        for (long i = 0; i < count; i++) {
            switch (type) {
                case FLOAT -> data.putFloat(random.nextFloat(-1f, 1f));
                case DOUBLE -> data.putDouble(random.nextDouble(-1, 1));
                case INT64 -> data.putLong(random.nextInt(-5, 5));
                case INT32 -> data.putInt(random.nextInt(-5, 5));
                case INT16 -> data.putShort((short) random.nextInt(-5, 5));
                case INT8 -> data.put((byte) random.nextInt(-5, 5));
                case UINT64 -> data.putLong(random.nextInt(10));
                case UINT32 -> data.putInt(random.nextInt(10));
                case UINT16 -> data.putShort((short) random.nextInt(10));
                case UINT8 -> data.put((byte) random.nextInt(10));
                case BOOL -> data.put((byte) random.nextInt(2));
                default -> throw new IllegalArgumentException("input " + name + " is " + type
                        + "; compare makes random inputs of float, double, bool and 8- to 64-bit integers only");
            }
        }
        return new TensorData(type, shape, data.array());
    }
}
