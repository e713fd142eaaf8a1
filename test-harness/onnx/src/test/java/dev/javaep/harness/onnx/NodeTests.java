package dev.javaep.harness.onnx;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;

/** Where the ONNX node tests are (system property {@code onnx.node.tests.dir}, set by the build). */
final class NodeTests {
    private NodeTests() {}

    /** The node tests folder, or a skipped test that says why. */
    static Path dir() {
        String dir = System.getProperty("onnx.node.tests.dir");
        Assumptions.assumeTrue(dir != null && Files.isDirectory(Path.of(dir)),
                "ONNX node tests not found at '" + dir + "' (system property onnx.node.tests.dir); "
                        + "put onnx/backend/test/data/node there to run this test");
        return Path.of(dir);
    }

    static Path dataSet(String test) {
        Path p = dir().resolve(test).resolve("test_data_set_0");
        Assumptions.assumeTrue(Files.isDirectory(p), "node test " + test + " is missing from " + dir());
        return p;
    }
}
