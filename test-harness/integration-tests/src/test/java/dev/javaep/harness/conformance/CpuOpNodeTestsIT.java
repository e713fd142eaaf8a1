package dev.javaep.harness.conformance;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.javaep.conformance.NodeTestResult;
import dev.javaep.conformance.NodeTestRunner;
import dev.javaep.conformance.OpNodeTests;
import dev.javaep.cpu.kernel.CpuKernels;
import dev.javaep.harness.JavaepRegistration;
import dev.javaep.harness.TestPaths;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The ONNX node tests of every op in JavaCpu's kernel table (the selection comes from the table, not from a
 * list kept by hand), each on JavaCpu with CPU fallback disabled and on ORT's own CPU EP: for every op, JavaCpu
 * passes every test ORT's CPU EP passes. The table it prints is what {@code bin/javaep op-table} writes into
 * docs/ops.md.
 */
class CpuOpNodeTestsIT {
    private static final String EP = "JavaCpuExecutionProvider";

    /**
     * Node tests ORT's CPU EP passes that JavaCpu does not, each with the reason: the stated gaps. None today
     * (BatchNormalization's training mode and MaxPool's Indices, the last ones, are implemented).
     */
    static final Map<String, String> KNOWN_GAPS = Map.of();

    @RegisterExtension
    static final JavaepRegistration JAVAEP = new JavaepRegistration("javaep-op-node-tests", EP);

    @Test
    void everyOpOfTheKernelTablePassesWhatOrtCpuPasses() throws IOException {
        Path root = TestPaths.nodeTests();
        assumeTrue(Files.isDirectory(root), "ONNX node tests not found at " + root);
        Map<String, List<Path>> tests = OpNodeTests.byOp(root, CpuKernels.supportedOpTypes());
        List<OpNodeTests.Row> rows = OpNodeTests.run(tests, new NodeTestRunner(JAVAEP.env(), JAVAEP.device(EP)),
                NodeTestRunner.onOrtCpu(JAVAEP.env()));
        String table = OpNodeTests.markdown(EP, rows);
        System.out.print(table);
        if (Boolean.getBoolean("javaep.updateDocs")) { // docs/ops.md's JavaCpu section is this table
            java.nio.file.Path repo = java.nio.file.Path.of(System.getProperty("basedir", ".")).toAbsolutePath().getParent().getParent();
            dev.javaep.harness.docs.OpsDoc.update(dev.javaep.harness.docs.OpsDoc.file(repo), "javacpu-node-tests", table);
        }
        long total = rows.stream().mapToLong(r -> r.onEp().size()).sum();
        long passed = rows.stream().mapToLong(OpNodeTests.Row::epPassed).sum();
        System.out.printf("%s: %d ops, %d node tests, %d passed%n", EP, rows.size(), total, passed);
        assertTrue(total >= 50, "expected the kernel table's node tests, found " + total);
        assertEquals(List.of(), rows.stream().flatMap(r -> r.behindOrtCpu().stream())
                        .filter(r -> !KNOWN_GAPS.containsKey(r.test())).map(NodeTestResult::toString).toList(),
                "node tests ORT's CPU EP passes and JavaCpu does not (beyond the stated gaps " + KNOWN_GAPS.keySet() + ")");
    }
}
