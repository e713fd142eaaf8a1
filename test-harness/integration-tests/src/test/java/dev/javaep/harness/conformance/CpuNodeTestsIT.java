package dev.javaep.harness.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.conformance.NodeTestResult;
import dev.javaep.conformance.NodeTestRunner;
import dev.javaep.conformance.OpSetNodeTests;
import dev.javaep.harness.TestPaths;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** ONNX node tests for JavaCpuExecutionProvider's op set, every node on the EP, CPU fallback disabled. */
class CpuNodeTestsIT {
    static List<Path> opSetTests() throws IOException {
        Path root = TestPaths.nodeTests();
        assumeTrue(Files.isDirectory(root), "ONNX node tests not found at " + root);
        return OpSetNodeTests.list(root);
    }

    @Test
    void opSetNodeTestsPassOnJavaCpu() throws IOException {
        List<Path> tests = opSetTests();
        List<NodeTestResult> results = new ArrayList<>();
        try (OrtEnvironment env = OrtHost.shared().createEnvironment("javaep-node-tests", OrtHost.LogLevel.ERROR)) {
            env.registerExecutionProviderLibrary("javaep-node-tests", TestPaths.loaderLibrary());
            try {
                NodeTestRunner runner = new NodeTestRunner(env, env.epDevice("JavaCpuExecutionProvider"));
                for (Path test : tests) {
                    results.add(runner.run(test));
                }
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-node-tests");
            }
        }
        results.forEach(r -> System.out.println("node-test " + r));
        long passed = results.stream().filter(NodeTestResult::passed).count();
        System.out.printf("JavaCpuExecutionProvider ONNX node tests: %d passed, %d failed%n", passed, results.size() - passed);
        assertTrue(results.size() >= 50, "expected the op set's node tests, found " + results.size());
        assertEquals(results.size(), passed, "node tests not passing: "
                + results.stream().filter(r -> !r.passed()).map(NodeTestResult::toString).toList());
    }
}
