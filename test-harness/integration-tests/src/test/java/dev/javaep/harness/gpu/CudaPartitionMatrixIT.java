package dev.javaep.harness.gpu;

import dev.javaep.harness.JavaepRegistration;
import dev.javaep.harness.partition.PartitionCases;
import dev.javaep.harness.partition.PartitionCases.Case;
import dev.javaep.harness.partition.PartitionMatrix;
import dev.javaep.host.EpDevice;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
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

    @RegisterExtension
    static final JavaepRegistration JAVAEP = new JavaepRegistration(REGISTRATION);



    static List<Case> cases() {
        return PartitionCases.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void givesOrtCpuOutputsWithTheExpectedClaims(Case c) {
        EpDevice device = CudaGpu.device(JAVAEP.env()); // skips each case, with the reason, without a usable GPU
        new PartitionMatrix(JAVAEP.env(), device).check(c);
    }

    /** ORT's profiler sees the 16-node chain as one JavaCuda node: one kernel event per Run. */
    @Test
    void theChainIsOneCompiledNodePerRunInOrtsProfile(@TempDir Path dir) throws IOException {
        new PartitionMatrix(JAVAEP.env(), CudaGpu.device(JAVAEP.env())).checkOneNodePerRunInProfile(PartitionCases.chain16(), dir);
    }
}
