package dev.javaep.harness;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;

/** Where the build put what integration tests need (system properties set by the POM). */
public final class TestPaths {
    private TestPaths() {}

    public static Path distribution() {
        return Path.of(required("javaep.dist.dir"));
    }

    public static Path loaderLibrary() {
        Path library = distribution().resolve(System.getProperty("os.name").startsWith("Windows") ? "javaep.dll" : "libjavaep.so");
        if (!Files.isRegularFile(library)) {
            throw new IllegalStateException("no loader library at " + library + ": run the build's package phase first");
        }
        return library;
    }

    /** An ONNX node test folder; skips the test (visibly) when the node tests are not beside the checkout. */
    public static Path nodeTest(String name) {
        Path dir = nodeTests().resolve(name);
        assumeTrue(Files.isDirectory(dir), "ONNX node test " + name + " not found under " + nodeTests());
        return dir;
    }

    public static Path nodeTests() {
        return Path.of(required("onnx.node.tests.dir"));
    }

    private static String required(String property) {
        String value = System.getProperty(property);
        if (value == null) {
            throw new IllegalStateException("system property " + property + " is not set: run through Maven (./mvnw verify)");
        }
        return value;
    }
}
