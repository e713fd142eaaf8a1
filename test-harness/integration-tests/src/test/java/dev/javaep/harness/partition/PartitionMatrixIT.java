package dev.javaep.harness.partition;

import dev.javaep.harness.JavaepRegistration;

import dev.javaep.harness.partition.PartitionCases.Case;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The partition matrix on JavaCpuExecutionProvider: graphs that mix JavaCpu's nodes with nodes only
 * ORT's CPU EP runs give ORT's CPU outputs, with the claims each case expects.
 */
class PartitionMatrixIT {
    private static final String REGISTRATION = "javaep-partition-matrix";
    private static final String JAVA_CPU = "JavaCpuExecutionProvider";

    @RegisterExtension
    static final JavaepRegistration JAVAEP = new JavaepRegistration(REGISTRATION, JAVA_CPU, JavaCudaPlanningExecutionProviderFactory.NAME);



    static List<Case> cases() {
        return PartitionCases.all();
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void givesOrtCpuOutputsWithTheExpectedClaims(Case c) {
        new PartitionMatrix(JAVAEP.env(), JAVAEP.device(JAVA_CPU)).check(c);
    }

    /**
     * JavaCuda's decisions ({@link JavaCudaPlanningExecutionProviderFactory}, no GPU needed) claim the same, but for
     * the kernels NVRTC compiles where it is absent.
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("cases")
    void javaCudaDecisionsClaimTheSame(Case c) {
        new PartitionMatrix(JAVAEP.env(), JAVAEP.env().epDevice(JavaCudaPlanningExecutionProviderFactory.NAME))
                .checkClaims(c.forJavaCuda(dev.javaep.cuda.kernel.CudaKernelLibrary.compilesSources()));
    }

    /**
     * ORT's profiler sees the 16-node chain as one node: one kernel event per Run, of JavaCpu's fused
     * node, and no other node event.
     */
    @Test
    void theChainIsOneCompiledNodePerRunInOrtsProfile(@TempDir Path dir) throws IOException {
        new PartitionMatrix(JAVAEP.env(), JAVAEP.device(JAVA_CPU)).checkOneNodePerRunInProfile(PartitionCases.chain16(), dir);
    }
}
