package dev.javaep.harness.gpu;

import dev.javaep.harness.TestPaths;
import dev.javaep.harness.ort.EpDevice;
import dev.javaep.harness.ort.OrtEnvironment;
import dev.javaep.harness.ort.OrtHost;
import dev.javaep.harness.partition.PartitionCases;
import dev.javaep.harness.partition.PartitionCases.Case;
import dev.javaep.harness.partition.PartitionMatrix;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import java.io.IOException;
import java.nio.file.Path;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The partition matrix ({@link PartitionCases}, the same cases {@code partition.PartitionMatrixIT} runs
 * on JavaCpu) on JavaCudaExecutionProvider: mixed graphs give ORT's CPU outputs within
 * {@link PartitionMatrix#TOLERANCE}, with the same claims, CPU fallback on (and off for models of EP ops
 * only). Includes the model, Slice (CPU) -> Relu -> Sigmoid -> Flatten (CPU) -> MatMul -> Add ->
 * Tanh -> Softmax ({@code issue_model}), where ORT copies between host and device at every boundary.
 */
@Tag("gpu")
class CudaPartitionMatrixIT {
    private static final String REGISTRATION = "javaep-cuda-partition-matrix";

    private static OrtEnvironment env;

    @BeforeAll
    static void register() {
        env = OrtHost.shared().createEnvironment(REGISTRATION, OrtHost.LogLevel.ERROR);
        env.registerExecutionProviderLibrary(REGISTRATION, TestPaths.loaderLibrary());
    }

    @AfterAll
    static void unregister() {
        if (env != null) {
            env.unregisterExecutionProviderLibrary(REGISTRATION);
            env.close();
        }
    }

    static List<Case> cases() {
        return PartitionCases.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void givesOrtCpuOutputsWithTheExpectedClaims(Case c) {
        EpDevice device = CudaGpu.device(env); // skips each case, with the reason, without a usable GPU
        new PartitionMatrix(env, device).check(c);
    }

    /** ORT's profiler sees the 16-node chain as one JavaCuda node: one kernel event per Run. */
    @Test
    void theChainIsOneCompiledNodePerRunInOrtsProfile(@TempDir Path dir) throws IOException {
        new PartitionMatrix(env, CudaGpu.device(env)).checkOneNodePerRunInProfile(PartitionCases.chain16(), dir);
    }
}
