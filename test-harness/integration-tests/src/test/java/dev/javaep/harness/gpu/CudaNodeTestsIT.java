package dev.javaep.harness.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.conformance.NodeTestResult;
import dev.javaep.conformance.NodeTestRunner;
import dev.javaep.conformance.OpNodeTests;
import dev.javaep.cuda.kernel.CudaOps;
import dev.javaep.harness.TestPaths;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

/**
 * The ONNX node tests of every op in JavaCuda's kernel table, with every node on JavaCudaExecutionProvider and
 * CPU fallback disabled, beside ORT's own CPU EP on the same tests. None may fail where ORT's CPU EP passes (a
 * wrong result); a test the EP declines (a type its kernels do not have, such as double) is listed with the
 * EP's reason in the table it prints (docs/ops.md's JavaCuda column).
 */
@Tag("gpu")
class CudaNodeTestsIT {
    private static final String EP = "JavaCudaExecutionProvider";

    @Test
    void kernelTableNodeTestsPassOnJavaCuda() {
        Map<String, List<Path>> tests = OpNodeTests.byOp(TestPaths.nodeTests(), CudaOps.table().opTypes());
        List<OpNodeTests.Row> rows;
        try (OrtEnvironment env = OrtHost.shared().createEnvironment("javaep-cuda-node-tests", OrtHost.LogLevel.ERROR)) {
            env.registerExecutionProviderLibrary("javaep-cuda-node-tests", TestPaths.loaderLibrary());
            try {
                rows = OpNodeTests.run(tests, new NodeTestRunner(env, CudaGpu.device(env)), NodeTestRunner.onOrtCpu(env));
            } finally {
                env.unregisterExecutionProviderLibrary("javaep-cuda-node-tests");
            }
        }
        System.out.print(OpNodeTests.markdown(EP, rows));
        List<NodeTestResult> all = rows.stream().flatMap(r -> r.onEp().stream()).toList();
        long passed = all.stream().filter(NodeTestResult::passed).count();
        List<NodeTestResult> failed = all.stream().filter(r -> r.outcome() == NodeTestResult.Outcome.FAILED).toList();
        List<NodeTestResult> wrong = rows.stream().flatMap(r -> r.behindOrtCpu().stream())
                .filter(r -> r.outcome() == NodeTestResult.Outcome.FAILED).toList();
        long behind = rows.stream().mapToLong(r -> r.behindOrtCpu().size()).sum();
        System.out.printf("%s ONNX node tests: %d ops, %d passed, %d failed, %d not supported (of %d); %d behind ORT CPU%n",
                EP, rows.size(), passed, failed.size(), all.size() - passed - failed.size(), all.size(), behind);
        assertEquals(List.of(), wrong.stream().map(NodeTestResult::toString).toList(),
                "node tests failing on " + EP + " that ORT's CPU EP passes");
        assertTrue(passed > 0, "no node test ran");
    }
}
