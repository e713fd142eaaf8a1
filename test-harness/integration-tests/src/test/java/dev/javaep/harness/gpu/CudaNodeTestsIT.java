package dev.javaep.harness.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.conformance.NodeTestResult;
import dev.javaep.conformance.NodeTestRunner;
import dev.javaep.conformance.OpSetNodeTests;
import dev.javaep.harness.TestPaths;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The op set's ONNX node tests with every node on JavaCudaExecutionProvider and CPU fallback
 * disabled. Tests of element types the kernels do not have (the CUDA kernels are float32; the
 * integer Add/Sub/Mul/Div variants) are reported as not supported; none may fail.
 */
@Tag("gpu")
class CudaNodeTestsIT {
    /** Tests whose tensors are integers: Add/Sub/Mul/Div over int8 … uint64. */
    private static final Pattern INTEGER_VARIANT = Pattern.compile("test_(add|sub|mul|div)_u?int\\d+.*");

    @Test
    void opSetNodeTestsPassOnJavaCuda() throws IOException {
        List<Path> tests = OpSetNodeTests.list(TestPaths.nodeTests());
        List<NodeTestResult> results = new ArrayList<>();
        try (OrtEnvironment env = OrtHost.shared().createEnvironment("javaep-cuda-node-tests", OrtHost.LogLevel.ERROR)) {
            env.registerExecutionProviderLibrary("javaep-cuda-node-tests", TestPaths.loaderLibrary());
            try {
                NodeTestRunner runner = new NodeTestRunner(env, CudaGpu.device(env));
                for (Path test : tests) {
                    results.add(runner.run(test));
                }
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-cuda-node-tests");
            }
        }
        results.forEach(r -> System.out.println("node-test " + r));
        long passed = results.stream().filter(r -> r.outcome() == NodeTestResult.Outcome.PASSED).count();
        long unsupported = results.stream().filter(r -> r.outcome() == NodeTestResult.Outcome.NOT_SUPPORTED).count();
        List<NodeTestResult> failed = results.stream().filter(r -> r.outcome() == NodeTestResult.Outcome.FAILED).toList();
        System.out.printf("JavaCudaExecutionProvider ONNX node tests: %d passed, %d failed, %d not supported (of %d)%n",
                passed, failed.size(), unsupported, results.size());
        assertEquals(List.of(), failed, "node tests failing on JavaCudaExecutionProvider");
        List<String> unexpected = results.stream().filter(r -> r.outcome() == NodeTestResult.Outcome.NOT_SUPPORTED)
                .map(NodeTestResult::test).filter(name -> !INTEGER_VARIANT.matcher(name).matches()).toList();
        assertEquals(List.of(), unexpected, "only the integer variants may be refused (the kernels are float32)");
        assertTrue(passed > 0, "no node test ran");
    }
}
