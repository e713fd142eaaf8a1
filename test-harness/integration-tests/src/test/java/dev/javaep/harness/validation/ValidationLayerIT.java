package dev.javaep.harness.validation;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.conformance.models.Models;
import dev.javaep.harness.TestPaths;
import dev.javaep.harness.kernels.JavaKernelRegistryTestExecutionProvider;
import dev.javaep.harness.validation.BrokenDeviceFactory.Bug;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import dev.javaep.host.TensorData;
import dev.javaep.validation.Violation;
import dev.javaep.validation.Violations;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The validation layer (docs/validation-layer.md) in front of a copy of libjavaep: ORT loads libjavaep configured to
 * validate the copy, the layer calls the copy's CreateEpFactories (which, nested, offers javaep's Java EPs) and hands
 * ORT its proxies. JavaCpu behind the layer gives JavaCpu's outputs with no violation; the broken device EPs
 * ({@link BrokenDeviceFactory}) are each caught in the callback their bug lives in.
 */
class ValidationLayerIT {
    private static final int BATCH = 4;
    private static final float[] X = new float[60];
    private static final float[] Y = new float[60];

    static {
        for (int i = 0; i < 60; i++) {
            X[i] = 3 * i;
            Y[i] = i;
        }
    }

    @TempDir
    static Path work;

    @BeforeEach
    void forgetEarlierViolations() {
        Violations.clear();
    }

    @Test
    void javaCpuBehindTheLayerGivesTheSameOutputsWithNoViolationAndATrace() throws IOException {
        float[] reference = withRegistration("validation-reference", Map.of("javaep.factories", "JavaCpuExecutionProvider"),
                env -> runMlp(env));
        Path trace = work.resolve("trace.json");
        float[] validated = withRegistration("validation-javacpu", layer(Map.of("javaep.factories", "JavaCpuExecutionProvider",
                "javaep.validate.trace", trace.toString())), env -> runMlp(env));

        assertArrayEquals(reference, validated, "JavaCpu's outputs, with and without the layer in front");
        assertEquals(Map.of(), Violations.counts(), () -> "violations: " + Violations.recent());

        // Written at the last ReleaseEpFactory (the unregistration above).
        String json = Files.readString(trace);
        JsonCheck.requireValid(json);
        Map<String, Integer> events = eventCounts(json);
        for (String callback : List.of("OrtEpFactory::GetSupportedDevices", "OrtEpFactory::CreateEp", "OrtEp::GetCapability",
                "OrtEp::Compile", "OrtNodeComputeInfo::CreateState", "OrtNodeComputeInfo::Compute",
                "OrtEp::ReleaseNodeComputeInfos", "OrtEpFactory::ReleaseEp")) {
            assertTrue(events.getOrDefault(callback, 0) > 0, callback + " is traced: " + events);
        }
        assertTrue(json.contains("\"ph\":\"X\"") && json.contains("\"dur\":") && json.contains("\"tid\":"), json.substring(0, 300));
    }

    @Test
    void theKernelRegistryPathGoesThroughTheLayersKernelProxies() throws IOException {
        Path trace = work.resolve("kernels-trace.json");
        float[] sum = runBehindTheLayer(JavaKernelRegistryTestExecutionProvider.NAME,
                Map.of("javaep.validate.trace", trace.toString()), "test_add");
        for (int i = 0; i < 60; i++) {
            assertEquals(X[i] + Y[i], sum[i], "sum[" + i + "] from the per-op kernel behind the layer");
        }
        assertEquals(Map.of(), Violations.counts(), () -> "violations: " + Violations.recent());
        // the kernel ORT created through the registry is the layer's proxy: its creation, Computes and Release are seen
        Map<String, Integer> events = eventCounts(Files.readString(trace));
        assertEquals(1, events.getOrDefault("OrtKernelCreateFunc", 0), events::toString);
        assertEquals(2, events.getOrDefault("OrtKernelImpl::Compute", 0), "two Runs: " + events);
        assertEquals(1, events.getOrDefault("OrtKernelImpl::Release", 0), events::toString);
    }

    @Test
    void misalignedAllocationsAreFlaggedInAllocOnStream() {
        // A stream-aware EP's allocator: ORT allocates through AllocOnStream.
        runSubBehindTheLayer(BrokenDeviceFactory.name(Bug.MISALIGNED), Map.of());
        assertFlagged(Violation.MISALIGNED_ALLOCATION, "OrtAllocator::AllocOnStream");
    }

    @Test
    void aPointerFreedTwiceIsFlaggedInFree() {
        runSubBehindTheLayer(BrokenDeviceFactory.name(Bug.ALIASING), Map.of());
        assertFlagged(Violation.FREE_OF_UNKNOWN_POINTER, "OrtAllocator::Free");
    }

    @Test
    void aSlowComputeIsFlaggedInCompute() {
        runSubBehindTheLayer(BrokenDeviceFactory.name(Bug.SLOW), Map.of("javaep.validate.slow.ms", "100"));
        assertFlagged(Violation.SLOW_CALL, "OrtNodeComputeInfo::Compute");
    }

    @Test
    void strictModeTurnsAViolationIntoAnErrorStatus() {
        RuntimeException failure = assertThrows(RuntimeException.class, () -> runSubBehindTheLayer(
                BrokenDeviceFactory.name(Bug.SLOW), Map.of("javaep.validate.slow.ms", "100", "javaep.validate.strict", "1")));
        assertFlagged(Violation.SLOW_CALL, "OrtNodeComputeInfo::Compute");
        assertTrue(String.valueOf(failure.getMessage()).contains("javaep validation (strict): OrtNodeComputeInfo::Compute"),
                () -> "the Run fails with the layer's status: " + failure);
    }

    // ---- helpers -------------------------------------------------------------------------------

    private static void assertFlagged(Violation kind, String callback) {
        List<Violations.Report> reports = Violations.recent();
        assertTrue(reports.stream().anyMatch(r -> r.kind() == kind && r.callback().equals(callback)),
                kind + " in " + callback + " among " + reports);
    }

    private static void runSubBehindTheLayer(String epName, Map<String, String> settings) {
        runBehindTheLayer(epName, settings, "test_sub");
    }

    /** Runs ONNX's node test {@code test} ([3,4,5] float x and y) twice on {@code epName} behind the layer; the output. */
    private static float[] runBehindTheLayer(String epName, Map<String, String> settings, String test) {
        Map<String, String> properties = new HashMap<>(settings);
        properties.put("javaep.factories", epName);
        return withRegistration("validation-" + epName, layer(properties), env -> {
            long[] shape = {3, 4, 5};
            try (SessionOptions options = env.createSessionOptions().disableCpuEpFallback()
                    .appendExecutionProvider(List.of(env.epDevice(epName)), Map.of());
                 Session session = env.createSession(TestPaths.nodeTest(test).resolve("model.onnx"), options)) {
                float[] out = null;
                for (int run = 0; run < 2; run++) {
                    out = session.run(Map.of("x", TensorData.ofFloats(shape, X), "y", TensorData.ofFloats(shape, Y)))
                            .values().iterator().next().floats();
                }
                return out;
            }
        });
    }

    private static float[] runMlp(OrtEnvironment env) {
        try (Session session = mlpSession(env)) {
            return session.run(Map.of("x", TensorData.ofFloats(new long[] {BATCH, Models.FEATURES}, Models.mlpInput(BATCH))))
                    .get("probabilities").floats();
        }
    }

    private static Session mlpSession(OrtEnvironment env) {
        try (SessionOptions options = env.createSessionOptions().disableCpuEpFallback()
                .appendExecutionProvider(List.of(env.epDevice("JavaCpuExecutionProvider")), Map.of())) {
            return env.createSession(Models.mlp(), options);
        }
    }

    /** The properties that put the layer in front of a copy of libjavaep, plus {@code more}. */
    private static Map<String, String> layer(Map<String, String> more) {
        return layer(work, more);
    }

    /** The same, with the copy of libjavaep in {@code directory}. */
    static Map<String, String> layer(Path directory, Map<String, String> more) {
        Map<String, String> properties = new HashMap<>(more);
        properties.put("javaep.validate.library", vendorCopy(directory).toString());
        return properties;
    }

    /** libjavaep at another path: a library of its own to ORT and the dynamic linker, javaep in this JVM all the same. */
    private static Path vendorCopy(Path directory) {
        Path copy = directory.resolve("vendor").resolve(TestPaths.loaderLibrary().getFileName());
        try {
            if (!Files.exists(copy)) {
                Files.createDirectories(copy.getParent());
                Files.copy(TestPaths.loaderLibrary(), copy, StandardCopyOption.REPLACE_EXISTING);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return copy;
    }

    /** Registers libjavaep with {@code properties} set (they are read at registration), runs {@code body}, unregisters. */
    static <T> T withRegistration(String name, Map<String, String> properties, Function<OrtEnvironment, T> body) {
        Map<String, String> previous = new HashMap<>();
        properties.forEach((key, value) -> previous.put(key, System.setProperty(key, value)));
        try (OrtEnvironment env = OrtHost.shared().createEnvironment(name, OrtHost.LogLevel.WARNING)) {
            env.registerExecutionProviderLibrary(name, TestPaths.loaderLibrary());
            try {
                return body.apply(env);
            } finally {
                env.unregisterExecutionProviderLibrary(name);
            }
        } finally {
            previous.forEach((key, value) -> {
                if (value == null) {
                    System.clearProperty(key);
                } else {
                    System.setProperty(key, value);
                }
            });
        }
    }

    static Map<String, Integer> eventCounts(String json) {
        Map<String, Integer> counts = new HashMap<>();
        Matcher m = Pattern.compile("\"name\":\"([^\"]+)\"").matcher(json);
        while (m.find()) {
            counts.merge(m.group(1), 1, Integer::sum);
        }
        return counts;
    }
}
