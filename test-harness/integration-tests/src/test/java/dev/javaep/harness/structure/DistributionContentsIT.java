package dev.javaep.harness.structure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.TestPaths;
import java.io.File;
import java.io.IOException;
import java.io.StringReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The distribution carries the product only: the loader, javaep's published jars and what they need at run time
 * (ORT's jar, for the CLI's libonnxruntime); no example app's libraries (LWJGL, JCuda) and no test library.
 */
class DistributionContentsIT {
    /** Jars of the example apps and the tests, by name prefix; none belongs in lib/. */
    static final List<String> NOT_THE_PRODUCT = List.of("lwjgl", "jcuda", "junit", "opentest4j", "apiguardian",
            "javaep-example-", "javaep-integration-tests");

    static Set<String> lib() throws IOException {
        try (Stream<Path> jars = Files.list(TestPaths.distribution().resolve("lib"))) {
            return jars.map(p -> p.getFileName().toString()).collect(Collectors.toCollection(TreeSet::new));
        }
    }

    @Test
    void libHoldsJavaepsArtifactsAndNoExampleOrTestLibraries() throws IOException {
        Set<String> lib = lib();
        System.out.println("[dist] lib/: " + lib);
        for (String artifact : List.of("javaep-spi", "javaep-runtime", "javaep-cpu", "javaep-cuda", "javaep-host",
                "javaep-onnx", "javaep-conformance", "javaep-cli")) {
            assertTrue(lib.contains(artifact + ".jar"), () -> artifact + ".jar is missing from lib/: " + lib);
        }
        assertTrue(lib.contains("onnxruntime.jar"), () -> "the CLI takes libonnxruntime from ORT's jar: " + lib);
        List<String> strays = lib.stream().filter(jar -> NOT_THE_PRODUCT.stream().anyMatch(jar::startsWith)).toList();
        assertEquals(List.of(), strays, "jars of the examples or tests in the distribution's lib/");
    }

    @Test
    void theLoadersClassPathNamesJarsOfTheDistribution() throws IOException {
        Path dist = TestPaths.distribution();
        Properties properties = new Properties();
        properties.load(new StringReader(Files.readString(dist.resolve("javaep.properties"))));
        String classPath = properties.getProperty("class.path", "");
        assertTrue(!classPath.isBlank(), "javaep.properties has a class.path");
        for (String entry : classPath.split(File.pathSeparator)) {
            assertTrue(Files.isRegularFile(dist.resolve(entry)), () -> "class.path names " + entry + ", which is not in " + dist);
        }
        assertTrue(classPath.contains("lib/javaep-runtime.jar") && classPath.contains("lib/javaep-spi.jar"), classPath);
    }
}
