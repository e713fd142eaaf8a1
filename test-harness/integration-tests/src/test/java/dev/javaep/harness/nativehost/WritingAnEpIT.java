package dev.javaep.harness.nativehost;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.spi.ElementType;
import java.io.IOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * docs/writing-an-ep.md's "Start from the example", executed: the {@code sh} blocks of that section run, in
 * order, in one bash script on a fresh copy of what they need (the root pom, the Maven wrapper, every
 * module's pom, javaep-spi's and examples/minimal-ep's sources; the distribution this build made is linked
 * in). So the example EP is built from source by the doc's own Maven command, registered through libjavaep,
 * compared with ORT's CPU EP and put through the conformance kit, as a new user would. Then the jar it built
 * runs in the C host, whose JVM libjavaep boots with {@code JAVAEP_CLASSPATH} naming the jar.
 */
class WritingAnEpIT {

    static final String EP = "MinimalExecutionProvider";
    static final String SECTION = "## Start from the example";
    static final Duration WALKTHROUGH_TIME = Duration.ofMinutes(10);
    /** Where the doc's commands find the distribution: the CLI module's, in a checkout. */
    static final String DIST_IN_CHECKOUT = "test-harness/cli/target/javaep-dist";

    /** Variables that would change what the commands do; the walkthrough sets its own. */
    static final List<String> UNSET = List.of("JAVAEP_JAVA_HOME", "JAVAEP_CLASSPATH", "JAVAEP_JVM_OPTIONS",
            "JAVAEP_DEBUG", "JAVAEP_FACTORIES", "MAVEN_ARGS", "MAVEN_PROJECTBASEDIR", "MAVEN_BASEDIR",
            "MAVEN_CMD_LINE_ARGS");

    static Path repo;
    static Path dist;
    static Path checkout;
    static NativeHosts.Result walkthrough;

    @BeforeAll
    static void runTheWalkthrough() throws Exception {
        repo = Path.of(System.getProperty("basedir", NativeHosts.targetDir().getParent().toString()))
                .toAbsolutePath().getParent().getParent();
        dist = NativeHosts.requiredDir("javaep.dist.dir");
        Path nodeTests = NativeHosts.requiredDir("onnx.node.tests.dir");
        String script = "set -eu\n" + String.join("\n", shellBlocks(Files.readString(repo.resolve("docs/writing-an-ep.md"))));

        checkout = NativeHosts.targetDir().resolve("writing-an-ep/checkout");
        deleteTree(checkout);
        copyCheckout(repo, checkout);
        Path linkedDist = checkout.resolve(DIST_IN_CHECKOUT);
        Files.createDirectories(linkedDist.getParent());
        Files.createSymbolicLink(linkedDist, dist);

        // -o: the outer build has already fetched every plugin the example's build uses (the example is a
        // module of that build), so the copy's build needs no network and cannot differ by what it downloads.
        walkthrough = NativeHosts.run(List.of("bash", "-c", "cd \"$1\" && bash -c \"$2\"", "walkthrough",
                        checkout.toString(), script),
                Map.of("ONNX_NODE_TESTS", nodeTests.toString(), "MAVEN_ARGS", "-o -B"), UNSET, WALKTHROUGH_TIME);
        System.out.println("[writing-an-ep walkthrough] " + walkthrough.elapsed().toSeconds() + " s\n--- script ---\n"
                + script + "\n--- stdout ---\n" + walkthrough.stdout() + "--- stderr ---\n" + walkthrough.stderr());
    }

    @Test
    @DisplayName("every command of the walkthrough succeeds")
    void walkthroughSucceeds() {
        assertFalse(walkthrough.timedOut(), walkthrough::describe);
        assertEquals(0, walkthrough.exitCode(), walkthrough::describe);
    }

    @Test
    @DisplayName("the doc's Maven command builds the EP jar with its service entry")
    void buildsTheJar() throws IOException {
        Path jar = exampleJar();
        try (JarFile file = new JarFile(jar.toFile())) {
            var services = file.getEntry("META-INF/services/dev.javaep.spi.ExecutionProviderFactory");
            assertTrue(services != null, "the jar lists no factory\n" + walkthrough.describe());
            String listed = new String(file.getInputStream(services).readAllBytes()).strip();
            assertEquals("com.example.minimalep.MinimalExecutionProviderFactory", listed);
            assertTrue(file.getEntry("dev/javaep/spi/ExecutionProvider.class") == null,
                    "javaep-spi is provided by javaep's class path and must not be packed into the EP's jar");
        }
    }

    @Test
    @DisplayName("javaep devices lists the EP on the CPU, registered through libjavaep")
    void devicesListTheEp() {
        assertTrue(walkthrough.stdout().contains("| " + EP + " | Example | CPU"), walkthrough::describe);
        assertFalse(walkthrough.stdout().contains("| JavaCpuExecutionProvider |"),
                () -> "JAVAEP_FACTORIES should offer only " + EP + "\n" + walkthrough.describe());
    }

    @Test
    @DisplayName("javaep compare: the model on the EP (CPU fallback disabled) matches ORT's CPU EP")
    void compareMatchesOrtCpu() {
        assertTrue(walkthrough.line(EP + ": outputs match").isPresent(), walkthrough::describe);
        assertTrue(walkthrough.stdout().contains("random inputs {x=FLOAT[2, 3, 4]}"), walkthrough::describe);
    }

    @Test
    @DisplayName("javaep node-tests --ops Add,Relu: the float tests pass, none fails")
    void conformanceKitPasses() {
        Matcher m = Pattern.compile(EP + ": (\\d+) passed, (\\d+) failed, (\\d+) not supported")
                .matcher(walkthrough.stdout());
        assertTrue(m.find(), walkthrough::describe);
        assertEquals(0, Integer.parseInt(m.group(2)), walkthrough::describe);
        for (String test : List.of("test_add", "test_add_bcast", "test_relu")) {
            assertTrue(walkthrough.stdout().lines().anyMatch(l -> l.matches("PASSED\\s+" + test)),
                    () -> test + " should pass\n" + walkthrough.describe());
        }
        assertFalse(walkthrough.stdout().lines().anyMatch(l -> l.matches("\\w+\\s+test_(?!add|relu).*")),
                () -> "--ops Add,Relu should keep only Add and Relu tests\n" + walkthrough.describe());
    }

    @Test
    @DisplayName("javaep conformance: the template passes the kit's registration, GetCapability, correctness and bad-input checks")
    void conformanceReportPasses() {
        Matcher m = Pattern.compile(EP + " on ONNX Runtime [^:]+: (\\d+) checks: (\\d+) passed, (\\d+) failed, (\\d+) crashed")
                .matcher(walkthrough.stdout());
        assertTrue(m.find(), walkthrough::describe);
        assertEquals(0, Integer.parseInt(m.group(3)), walkthrough::describe);
        assertEquals(0, Integer.parseInt(m.group(4)), walkthrough::describe);
        assertTrue(Integer.parseInt(m.group(2)) >= 10, walkthrough::describe);
    }

    @Test
    @DisplayName("the C host runs test_add on the built jar, in a JVM libjavaep boots from JAVAEP_CLASSPATH")
    void cHostRunsTheJar() throws Exception {
        Path jar = exampleJar();
        Path host = NativeHosts.compile("gcc", NativeHosts.cSource("ort_c_host.c"), "ort_c_host_example",
                List.of("-ldl", "-lm"));
        Path ort = NativeHosts.requiredFile(NativeHosts.requiredDir("ort.native.dir").resolve("linux-x64/libonnxruntime.so"),
                "generate-test-resources unpacks it from the onnxruntime jar");
        Path model = NativeHosts.requiredDir("onnx.node.tests.dir").resolve("test_add/model.onnx");
        NativeHosts.Result r = NativeHosts.run(List.of(host.toString(), ort.toString(), dist.resolve("libjavaep.so").toString(),
                        EP, model.toString(), "run", "1"),
                Map.of("JAVAEP_CLASSPATH", dist.resolve("lib/javaep-spi.jar") + ":" + dist.resolve("lib/javaep-runtime.jar")
                        + ":" + jar, "JAVAEP_FACTORIES", EP),
                UNSET, Duration.ofMinutes(2));
        assertEquals(0, r.exitCode(), r::describe);
        assertTrue(r.stdout().contains("DEVICE " + EP + " Example "), r::describe);
        assertTrue(r.line("RUN ok").isPresent(), r::describe);
    }

    @Test
    @DisplayName("forgetting JAVAEP_CLASSPATH: bin/javaep says to put the EP's jar there")
    void forgottenJarNamesTheFix() throws Exception {
        NativeHosts.Result r = NativeHosts.run(List.of(dist.resolve("bin/javaep").toString(), "compare",
                        repo.resolve("examples/minimal-ep/models/add_relu.onnx").toString(), EP),
                Map.of(), UNSET, Duration.ofMinutes(2));
        assertEquals(2, r.exitCode(), r::describe);
        assertTrue(r.stderr().contains("javaep: no EP device of " + EP), r::describe);
        assertTrue(r.stderr().contains("put the EP's jar on JAVAEP_CLASSPATH"), () -> "the message should name the fix\n"
                + r.describe());
    }

    @Test
    @DisplayName("the example's add_relu.onnx is what OnnxModelWriter makes from its description")
    void exampleModelIsReproducible() throws IOException {
        byte[] expected = new OnnxModelWriter("add_relu")
                .input("x", ElementType.FLOAT, Dim.param("N"), Dim.of(3), Dim.of(4))
                .initializer("bias", new float[] {0.5f, -0.25f, 0.125f, -1f}, 4)
                .output("y", ElementType.FLOAT, Dim.param("N"), Dim.of(3), Dim.of(4))
                .node("Add", List.of("x", "bias"), List.of("shifted"))
                .node("Relu", List.of("shifted"), List.of("y"))
                .toByteArray();
        Path model = repo.resolve("examples/minimal-ep/models/add_relu.onnx");
        assertArrayEquals(expected, Files.readAllBytes(model),
                model + " differs from this description: write it again with OnnxModelWriter.writeTo");
    }

    private static Path exampleJar() {
        return NativeHosts.requiredFile(checkout.resolve("examples/minimal-ep/target/minimal-ep.jar"),
                "the walkthrough's Maven command builds it\n" + walkthrough.describe());
    }

    /** The {@code sh} blocks of the doc's walkthrough section, in order. */
    static List<String> shellBlocks(String markdown) {
        int start = markdown.indexOf("\n" + SECTION + "\n");
        assertTrue(start >= 0, "docs/writing-an-ep.md has no section '" + SECTION + "'");
        int end = markdown.indexOf("\n## ", start + SECTION.length() + 1);
        String section = markdown.substring(start, end < 0 ? markdown.length() : end);
        List<String> blocks = new ArrayList<>();
        Matcher m = Pattern.compile("(?ms)^```sh\\n(.*?)^```$").matcher(section);
        while (m.find()) {
            blocks.add(m.group(1));
        }
        assertTrue(blocks.size() >= 4, "the walkthrough should have its build, run and conformance blocks: " + blocks);
        return blocks;
    }

    /**
     * What the walkthrough's commands read from a checkout: every pom of the build (Maven reads them all, whatever
     * {@code -pl} selects), the wrapper, and the sources of what {@code -pl examples/minimal-ep -am} builds; build
     * outputs and tests are left behind.
     */
    private static void copyCheckout(Path from, Path to) throws IOException {
        copy(from, to, "mvnw");
        copyTree(from.resolve(".mvn"), to.resolve(".mvn"));
        for (Path pom : poms(from)) {
            copy(from, to, from.relativize(pom).toString());
        }
        copyTree(from.resolve("ep-factory/spi/src/main"), to.resolve("ep-factory/spi/src/main"));
        copyTree(from.resolve("examples/minimal-ep/src"), to.resolve("examples/minimal-ep/src"));
        copyTree(from.resolve("examples/minimal-ep/models"), to.resolve("examples/minimal-ep/models"));
    }

    /** The pom.xml files of the checkout, outside build outputs and hidden folders. */
    private static List<Path> poms(Path root) throws IOException {
        List<Path> poms = new ArrayList<>();
        Files.walkFileTree(root, new SimpleFileVisitor<>() {
            @Override
            public FileVisitResult preVisitDirectory(Path dir, BasicFileAttributes attrs) {
                String name = dir.getFileName().toString();
                boolean skip = !dir.equals(root) && (name.equals("target") || name.startsWith(".") || name.equals("node_modules"));
                return skip ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
            }

            @Override
            public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
                if (file.getFileName().toString().equals("pom.xml")) {
                    poms.add(file);
                }
                return FileVisitResult.CONTINUE;
            }
        });
        return poms;
    }

    private static void copy(Path from, Path to, String file) throws IOException {
        Files.createDirectories(to.resolve(file).getParent());
        Files.copy(from.resolve(file), to.resolve(file), java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path f : files.toList()) {
                Path target = to.resolve(from.relativize(f).toString());
                if (Files.isDirectory(f)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(f, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                }
            }
        }
    }

    private static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (Stream<Path> files = Files.walk(dir)) { // walk does not follow the dist link: its target stays
            for (Path f : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }
}
