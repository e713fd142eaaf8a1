package dev.javaep.harness.nativehost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.TestExecutionProvider;
import dev.javaep.harness.TestHostFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

/**
 * javaep as a C application sees it: {@code ort_c_host.c} loads the real libonnxruntime, registers
 * the distribution's {@code libjavaep.so} and runs ONNX's {@code test_add} model on a Java EP with
 * CPU fallback disabled. The first registration in a process creates the JVM; later ones join it.
 */
class CHostIT {

    static final String CPU_EP = "JavaCpuExecutionProvider";
    static final String THROWING_KERNEL_EP = "JavaThrowingKernelExecutionProvider";

    /** Variables the developer may have set that would change what the loader does. */
    static final List<String> LOADER_ENV = List.of("JAVAEP_JAVA_HOME", "JAVAEP_CLASSPATH", "JAVAEP_JVM_OPTIONS",
            "JAVAEP_DEBUG");

    static final Duration ONE_RUN = Duration.ofSeconds(120);
    static final Duration STRESS_RUN = Duration.ofSeconds(600);

    /** Noise bounds of the leak check, last cycle vs the fifth (the JVM is warm by then). */
    static final int THREAD_GROWTH_LIMIT = 2;
    static final long RSS_GROWTH_LIMIT_KB = 64 * 1024;

    static Path host;
    static Path ort;
    static Path loader;
    static Path model;
    static Path dist;

    @BeforeAll
    static void buildHost() throws Exception {
        dist = NativeHosts.requiredDir("javaep.dist.dir");
        loader = NativeHosts.requiredFile(dist.resolve("libjavaep.so"), "the package phase copies it from ep-loader-native");
        ort = NativeHosts.requiredFile(NativeHosts.requiredDir("ort.native.dir").resolve("linux-x64/libonnxruntime.so"),
                "generate-test-resources unpacks it from the onnxruntime jar");
        model = NativeHosts.requiredFile(NativeHosts.requiredDir("onnx.node.tests.dir").resolve("test_add/model.onnx"),
                "the ONNX node tests are expected under onnx.node.tests.dir");
        host = NativeHosts.compile("gcc", NativeHosts.cSource("ort_c_host.c"), "ort_c_host", List.of("-ldl", "-lm"));
    }

    static NativeHosts.Result host(String epName, String mode, int cycles, Map<String, String> env, Duration timeout)
            throws Exception {
        return host(loader, epName, mode, cycles, env, LOADER_ENV, timeout);
    }

    static NativeHosts.Result host(Path library, String epName, String mode, int cycles, Map<String, String> env,
                                   List<String> unset, Duration timeout) throws Exception {
        List<String> cmd = List.of(host.toString(), ort.toString(), library.toString(), epName, model.toString(), mode,
                Integer.toString(cycles));
        NativeHosts.Result r = NativeHosts.run(cmd, env, unset, timeout);
        System.out.println("[" + mode + " " + epName + "] exit " + r.exitCode() + " in " + r.elapsed().toMillis()
                + " ms\n" + r.stdout());
        return r;
    }

    @Nested
    @DisplayName("run mode")
    class Run {

        @Test
        @DisplayName("one cycle runs test_add on JavaCpuExecutionProvider")
        void oneCycle() throws Exception {
            NativeHosts.Result r = host(CPU_EP, "run", 1, Map.of(), ONE_RUN);
            assertEquals(0, r.exitCode(), r::describe);
            assertTrue(r.stdout().contains("DEVICE " + CPU_EP + " "), () -> "no device of " + CPU_EP + "\n" + r.describe());
            assertTrue(r.line("RUN ok").isPresent(), r::describe);
            assertEquals(1, r.lines("CYCLE ").size(), r::describe);
        }

        @Test
        @DisplayName("a JVM without jdk.jfr (a jlinked runtime may leave it out) runs the compiled node: no event class loads")
        void runtimeWithoutFlightRecorder() throws Exception {
            NativeHosts.Result r = host(CPU_EP, "run", 1,
                    Map.of("JAVAEP_JVM_OPTIONS", "--limit-modules=java.base,java.logging"), ONE_RUN);
            assertEquals(0, r.exitCode(), r::describe);
            assertTrue(r.line("RUN ok").isPresent(), r::describe);
            assertTrue(!r.stdout().contains("jdk/jfr") && !r.stderr().contains("jdk/jfr"), r::describe);
        }

        @Test
        @DisplayName("25 register/run/unregister cycles in one process neither crash nor leak")
        void manyCycles() throws Exception {
            int cycles = 25;
            NativeHosts.Result r = host(CPU_EP, "run", cycles, Map.of(), STRESS_RUN);
            assertFalse(r.timedOut(), r::describe);
            assertEquals(0, r.exitCode(), r::describe);
            assertEquals(cycles, r.lines("RUN ok").size(), r::describe);

            List<long[]> stats = cycleStats(r);
            assertEquals(cycles, stats.size(), r::describe);
            long[] fifth = stats.get(4);
            long[] last = stats.get(cycles - 1);
            long threadGrowth = last[1] - fifth[1];
            long rssGrowthKb = last[2] - fifth[2];
            System.out.printf("cycles: threads %d (cycle 1) -> %d (cycle 5) -> %d (cycle %d): %+d after cycle 5, limit +%d%n",
                    stats.get(0)[1], fifth[1], last[1], cycles, threadGrowth, THREAD_GROWTH_LIMIT);
            System.out.printf("cycles: rss %d KiB (cycle 1) -> %d KiB (cycle 5) -> %d KiB (cycle %d): %+d KiB after cycle 5, limit +%d KiB%n",
                    stats.get(0)[2], fifth[2], last[2], cycles, rssGrowthKb, RSS_GROWTH_LIMIT_KB);
            assertTrue(threadGrowth <= THREAD_GROWTH_LIMIT, () -> "threads grew by " + threadGrowth + "\n" + r.describe());
            assertTrue(rssGrowthKb <= RSS_GROWTH_LIMIT_KB, () -> "RSS grew by " + rssGrowthKb + " KiB\n" + r.describe());
        }

        /** {cycle, threads, rss_kb} per CYCLE line. */
        private List<long[]> cycleStats(NativeHosts.Result r) {
            Pattern p = Pattern.compile("CYCLE (\\d+) threads=(-?\\d+) rss_kb=(-?\\d+)");
            List<long[]> out = new ArrayList<>();
            for (String line : r.lines("CYCLE ")) {
                Matcher m = p.matcher(line);
                assertTrue(m.matches(), () -> "bad CYCLE line: " + line);
                out.add(new long[] {Long.parseLong(m.group(1)), Long.parseLong(m.group(2)), Long.parseLong(m.group(3))});
            }
            return out;
        }
    }

    @Nested
    @DisplayName("loader faults: registration fails with a status that names the fix, the host lives on")
    class LoaderFaults {

        @Test
        @DisplayName("JAVAEP_JAVA_HOME pointing nowhere")
        void missingJavaHome() throws Exception {
            RegisterFailure f = registerFailure(Map.of("JAVAEP_JAVA_HOME", "/nonexistent"), true);
            f.assertMentions("JAVAEP_JAVA_HOME", "the message should say to set JAVAEP_JAVA_HOME");
            f.assertMentions("/nonexistent", "the message should show the path it tried");
        }

        @Test
        @DisplayName("JAVAEP_CLASSPATH naming a jar that does not exist")
        void missingClassPath() throws Exception {
            RegisterFailure f = registerFailure(Map.of("JAVAEP_CLASSPATH", "/nonexistent/missing.jar"), true);
            f.assertMentions("class path", "the message should talk about the class path");
            f.assertMentions("/nonexistent/missing.jar", "the message should show the class path");
            f.assertMentions("JAVAEP_CLASSPATH", "the message should say to set JAVAEP_CLASSPATH");
        }

        @Test
        @DisplayName("no JDK named anywhere: no java.home, JAVAEP_JAVA_HOME or JAVA_HOME")
        void noJdkConfigured() throws Exception {
            // A library folder whose javaep.properties has no java.home (the class path stays valid).
            Path alone = Files.createDirectories(NativeHosts.targetDir().resolve("no-java-home"));
            Files.copy(loader, alone.resolve("libjavaep.so"), java.nio.file.StandardCopyOption.REPLACE_EXISTING);
            Files.writeString(alone.resolve("javaep.properties"), "class.path=" + dist.resolve("lib/javaep-spi.jar") + ":" + dist.resolve("lib/javaep-runtime.jar")
                    + ":" + dist.resolve("lib/javaep-cpu.jar") + "\n");
            List<String> unset = new ArrayList<>(LOADER_ENV);
            unset.add("JAVA_HOME");
            NativeHosts.Result r = host(alone.resolve("libjavaep.so"), CPU_EP, "expect-register-failure", 1, Map.of(),
                    unset, ONE_RUN);
            String status = expectRegisterFailure(r, true);
            assertTrue(status.contains("no JDK configured"), () -> "the message should say no JDK is configured\n" + r.describe());
            assertTrue(status.contains("set JAVAEP_JAVA_HOME or java.home in " + alone.resolve("javaep.properties")),
                    () -> "the message should name both settings and the file\n" + r.describe());
        }

        @Test
        @DisplayName("a JDK older than 25 (JAVAEP_JAVA_HOME at an installed JDK 17, 21…)")
        void jdkTooOld() throws Exception {
            Path old = olderJdk().orElse(null);
            org.junit.jupiter.api.Assumptions.assumeTrue(old != null,
                    "no JDK older than 25 with lib/server/libjvm.so under /usr/lib/jvm");
            RegisterFailure f = registerFailure(Map.of("JAVAEP_JAVA_HOME", old.toString()), true);
            f.assertMentions("too old: javaep needs Java 25 or newer", "the message should say why");
            f.assertMentions("set JAVAEP_JAVA_HOME or java.home", "and what to set");
        }

        @Test
        @DisplayName("JAVAEP_CLASSPATH naming jars without javaep's (it replaces class.path)")
        void classPathWithoutJavaep() throws Exception {
            Path otherJar = NativeHosts.requiredFile(dist.resolve("lib/onnxruntime.jar"), "the package phase copies it");
            NativeHosts.Result r = host(CPU_EP, "expect-register-failure", 1, Map.of("JAVAEP_CLASSPATH", otherJar.toString()),
                    ONE_RUN);
            String status = expectRegisterFailure(r, true);
            assertTrue(status.contains("cannot load class dev.javaep.boot.NativeEntry"), r::describe);
            assertTrue(status.contains("set JAVAEP_CLASSPATH or class.path") && status.contains("lib/*.jar"),
                    () -> "the message should say to list javaep's jars\n" + r.describe());
        }

        /** A JDK older than 25 installed beside the build's, by its release file. */
        private static java.util.Optional<Path> olderJdk() throws IOException {
            Path jvms = Path.of("/usr/lib/jvm");
            if (!Files.isDirectory(jvms)) {
                return java.util.Optional.empty();
            }
            Pattern version = Pattern.compile("(?m)^JAVA_VERSION=\"(\\d+)");
            try (Stream<Path> homes = Files.list(jvms)) {
                for (Path home : homes.sorted().toList()) {
                    Path release = home.resolve("release");
                    if (!Files.isRegularFile(release) || !Files.isRegularFile(home.resolve("lib/server/libjvm.so"))) {
                        continue;
                    }
                    Matcher m = version.matcher(Files.readString(release));
                    if (m.find() && Integer.parseInt(m.group(1)) < 25) {
                        return java.util.Optional.of(home.toRealPath());
                    }
                }
            }
            return java.util.Optional.empty();
        }
    }

    /** Mistakes past the loader, on the Java side or in the host's setup: each message names what to change. */
    @Nested
    @DisplayName("first-day errors past the loader: the message names the fix")
    class FirstDayErrors {

        @Test
        @DisplayName("JAVAEP_FACTORIES naming an EP no jar on the class path offers")
        void unknownFactory() throws Exception {
            RegisterFailure f = registerFailure(Map.of("JAVAEP_FACTORIES", "NoSuchExecutionProvider"), false);
            f.assertMentions("JAVAEP_FACTORIES names NoSuchExecutionProvider", "the message should name what was asked for");
            f.assertMentions("offers [" + CPU_EP, "the message should list what is there");
            f.assertMentions("add the EP's jar to javaep's class path (class.path in javaep.properties, or JAVAEP_CLASSPATH)",
                    "the message should say where the jar goes");
        }

        @Test
        @DisplayName("an ONNX Runtime older than 1.24 (fault injection: ORT 1.29 with API 24 and later hidden, version 1.23.2)")
        void ortTooOld() throws Exception {
            NativeHosts.Result r = host(CPU_EP, "old-ort", 1, Map.of(), ONE_RUN);
            assertEquals(0, r.exitCode(), r::describe);
            String status = r.status("STATUS code=").orElseThrow(() -> new AssertionError("no STATUS line\n" + r.describe()));
            assertTrue(status.contains("ONNX Runtime 1.23.2 offers no C API between 24 and"), r::describe);
            assertTrue(status.contains("javaep needs ONNX Runtime 1.24 or newer"), () -> "the message should name the fix\n" + r.describe());
            assertTrue(r.line("HOST alive factories=0").isPresent(), () -> "no factory may be handed out\n" + r.describe());
        }

        @Test
        @DisplayName("no NVIDIA driver: JavaCudaExecutionProvider lists no device and ORT's log says what to install")
        void noGpu() throws Exception {
            NativeHosts.Result r = host(CPU_EP, "run", 1, Map.of(), ONE_RUN);
            assertEquals(0, r.exitCode(), r::describe);
            org.junit.jupiter.api.Assumptions.assumeFalse(r.stdout().contains("DEVICE JavaCudaExecutionProvider "),
                    "this machine has a CUDA device");
            String warning = r.stderr().lines().filter(l -> l.contains("JavaCudaExecutionProvider offers no devices: "))
                    .findFirst().orElseThrow(() -> new AssertionError("ORT's log should say why there is no JavaCuda device\n"
                            + r.describe()));
            if (warning.contains("libcuda.so.1 not found")) {
                assertTrue(warning.contains("install the NVIDIA driver"), () -> "the warning should name the fix: " + warning);
            }
        }
    }

    /**
     * The distribution with its embedded runtime ({@code runtime/}, built by test-harness/cli's embedded-runtime
     * profile, on by default), copied elsewhere and run with no JDK anywhere the process could find one:
     * JAVA_HOME and JAVAEP_JAVA_HOME unset, no folder with a {@code java} on PATH. {@code java.home=runtime}
     * resolves against the copy's javaep.properties.
     */
    @Nested
    @DisplayName("embedded runtime: no JDK on the machine's paths")
    class EmbeddedRuntime {

        @Test
        @DisplayName("the C host boots the distribution's own runtime/ and runs test_add")
        void cHostBootsTheEmbeddedRuntime() throws Exception {
            Path moved = movedDistribution();
            NativeHosts.Result r = NativeHosts.run(List.of(host.toString(), ort.toString(),
                            moved.resolve("libjavaep.so").toString(), CPU_EP, model.toString(), "run", "1"),
                    noJdkEnvironment(Map.of("JAVAEP_DEBUG", "1")), noJdkUnset(), ONE_RUN);
            System.out.println("[embedded runtime] exit " + r.exitCode() + "\n" + r.stdout() + r.stderr());
            assertEquals(0, r.exitCode(), r::describe);
            assertTrue(r.line("RUN ok").isPresent(), r::describe);
            String libjvm = moved.resolve("runtime/lib/server/libjvm.so").toString();
            assertTrue(r.stderr().contains("java.home '" + moved.resolve("runtime") + "' from java.home in javaep.properties"),
                    () -> "java.home=runtime should resolve against the copy's folder\n" + r.describe());
            assertTrue(r.stderr().contains("creating a JVM from " + libjvm), () -> "the JVM should come from " + libjvm
                    + "\n" + r.describe());
        }

        @Test
        @DisplayName("bin/javaep runs on the embedded runtime too")
        void launcherRunsOnTheEmbeddedRuntime() throws Exception {
            Path moved = movedDistribution();
            NativeHosts.Result noJava = NativeHosts.run(List.of("/bin/sh", "-c", "command -v java || echo no java"),
                    noJdkEnvironment(Map.of()), noJdkUnset(), ONE_RUN);
            assertEquals("no java", noJava.stdout().strip(), () -> "the environment still finds a java\n" + noJava.describe());
            NativeHosts.Result r = NativeHosts.run(List.of(moved.resolve("bin/javaep").toString(), "devices"),
                    noJdkEnvironment(Map.of()), noJdkUnset(), ONE_RUN);
            assertEquals(0, r.exitCode(), r::describe);
            assertTrue(r.stdout().contains("| " + CPU_EP + " |"), r::describe);
        }

        /**
         * A copy of the distribution under target/: the loader, javaep.properties, bin/ and the runtime copied,
         * the jars linked (the runtime must be the copy's own; the jars are only read).
         */
        private Path movedDistribution() throws IOException {
            Path runtime = dist.resolve("runtime");
            org.junit.jupiter.api.Assumptions.assumeTrue(Files.isDirectory(runtime),
                    () -> runtime + " is missing: the distribution was built without the embedded-runtime profile "
                            + "(-Djavaep.noEmbeddedRuntime)");
            Path moved = NativeHosts.targetDir().resolve("moved-dist");
            if (Files.exists(moved)) {
                try (Stream<Path> files = Files.walk(moved)) {
                    for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                        Files.delete(f);
                    }
                }
            }
            try (Stream<Path> files = Files.walk(dist)) {
                for (Path f : files.toList()) {
                    Path target = moved.resolve(dist.relativize(f).toString());
                    if (Files.isDirectory(f)) {
                        Files.createDirectories(target);
                    } else if (f.startsWith(dist.resolve("lib"))) {
                        Files.createSymbolicLink(target, f);
                    } else {
                        Files.copy(f, target, java.nio.file.StandardCopyOption.COPY_ATTRIBUTES);
                    }
                }
            }
            return moved;
        }

        /** PATH without any folder holding a java, plus the few tools bin/javaep uses (sed, dirname) linked alone. */
        private Map<String, String> noJdkEnvironment(Map<String, String> extra) throws IOException {
            Path tools = Files.createDirectories(NativeHosts.targetDir().resolve("no-jdk-tools"));
            for (String tool : List.of("sed", "dirname")) {
                Path link = tools.resolve(tool);
                if (!Files.exists(link, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
                    Files.createSymbolicLink(link, NativeHosts.findProgram(tool, "/usr/bin", "/bin").orElseThrow());
                }
            }
            List<String> path = new ArrayList<>();
            for (String dir : System.getenv().getOrDefault("PATH", "").split(java.io.File.pathSeparator)) {
                if (!dir.isEmpty() && !Files.exists(Path.of(dir, "java"))) {
                    path.add(dir);
                }
            }
            path.add(tools.toString());
            Map<String, String> env = new java.util.HashMap<>(extra);
            env.put("PATH", String.join(java.io.File.pathSeparator, path));
            return env;
        }

        private List<String> noJdkUnset() {
            List<String> unset = new ArrayList<>(LOADER_ENV);
            unset.addAll(List.of("JAVA_HOME", "JDK_HOME", "JAVAEP_FACTORIES", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS"));
            return unset;
        }
    }

    /**
     * Faults inside Java factories. These depend on the test classes
     * {@code dev.javaep.harness.faults.ThrowingFactory} (every callback throws) and
     * {@code dev.javaep.harness.faults.ThrowingKernelFactory} (EP {@value #THROWING_KERNEL_EP},
     * whose kernel throws in Run), which are written separately from this test. Each runs from a
     * jar made here that registers only that one factory.
     */
    @Nested
    @DisplayName("fault factories (need dev.javaep.harness.faults.ThrowingFactory / ThrowingKernelFactory)")
    class FaultFactories {

        @Test
        @DisplayName("a factory whose callbacks throw makes registration fail with its name")
        void throwingFactory() throws Exception {
            Path jar = faultJar("ThrowingFactory");
            NativeHosts.Result r = host(CPU_EP, "expect-register-failure", 1,
                    Map.of("JAVAEP_CLASSPATH", classPathWith(jar)), ONE_RUN);
            String status = expectRegisterFailure(r, false);
            assertTrue(status.contains("ThrowingFactory"), () -> "the message should name the factory\n" + r.describe());
            assertTrue(status.contains("msg=javaep: CreateEpFactories failed: ")
                            || status.contains("javaep: execution provider factory "),
                    () -> "the message should say registration failed in a factory\n" + r.describe());
        }

        @Test
        @DisplayName("a kernel that throws makes Run fail cleanly, twice, and the host lives on")
        void throwingKernel() throws Exception {
            Path jar = faultJar("ThrowingKernelFactory");
            NativeHosts.Result r = host(THROWING_KERNEL_EP, "expect-run-failure", 1,
                    Map.of("JAVAEP_CLASSPATH", classPathWith(jar)), ONE_RUN);
            assertEquals(0, r.exitCode(), r::describe);
            String status = r.status("STATUS code=").orElseThrow(() -> new AssertionError("no STATUS line\n" + r.describe()));
            assertTrue(status.contains("javaep: OrtNodeComputeInfo::Compute failed: ArithmeticException: "),
                    () -> "the message should say the kernel failed, and with what\n" + r.describe());
            assertTrue(r.status("STATUS again code=").isPresent(), () -> "the second Run should fail as well\n" + r.describe());
            assertTrue(r.line("HOST alive").isPresent(), r::describe);
        }

        /**
         * A jar of everything under dev/javaep/harness/faults/, and the test EPs' shared base classes they build on,
         * that registers only {@code simpleName}.
         */
        private Path faultJar(String simpleName) throws IOException {
            Path classes = NativeHosts.requiredDir("javaep.test.classes.dir");
            Path faults = classes.resolve("dev/javaep/harness/faults");
            String className = "dev.javaep.harness.faults." + simpleName;
            NativeHosts.requiredFile(faults.resolve(simpleName + ".class"),
                    "test class " + className + " is expected in test-harness/integration-tests/src/test/java");
            List<Path> shared = Stream.of(TestHostFactory.class, TestExecutionProvider.class)
                    .map(c -> classes.resolve(c.getName().replace('.', '/') + ".class")).toList();
            Path jar = Files.createDirectories(NativeHosts.targetDir().resolve("fault-jars")).resolve(simpleName + ".jar");
            try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar));
                 Stream<Path> files = Files.walk(faults)) {
                for (Path f : Stream.concat(files.filter(Files::isRegularFile).sorted(), shared.stream()).toList()) {
                    out.putNextEntry(new JarEntry(classes.relativize(f).toString().replace('\\', '/')));
                    try (InputStream in = Files.newInputStream(f)) {
                        in.transferTo(out);
                    }
                    out.closeEntry();
                }
                out.putNextEntry(new JarEntry("META-INF/services/dev.javaep.spi.ExecutionProviderFactory"));
                out.write((className + "\n").getBytes(StandardCharsets.UTF_8));
                out.closeEntry();
            }
            return jar;
        }

        /** The distribution's class path (from its javaep.properties, made absolute) plus one jar. */
        private String classPathWith(Path jar) throws IOException {
            Properties props = new Properties();
            try (InputStream in = Files.newInputStream(
                    NativeHosts.requiredFile(dist.resolve("javaep.properties"), "the package phase writes it"))) {
                props.load(in);
            }
            String cp = props.getProperty("class.path", "");
            List<String> entries = new ArrayList<>();
            for (String e : cp.split(":")) {
                if (!e.isBlank()) entries.add(dist.resolve(e.trim()).toString());
            }
            entries.add(jar.toString());
            return String.join(":", entries);
        }
    }

    /**
     * Checks the expect-register-failure protocol and returns the STATUS line. Messages the loader
     * itself makes start with "javaep: "; those from Java factories are the Java side's business.
     */
    /** A registration that failed as it should ({@link #expectRegisterFailure}): the host's output and ORT's status line. */
    record RegisterFailure(NativeHosts.Result result, String status) {
        /** Fails unless the status mentions {@code fragment}; {@code why} says what the message owes the user. */
        void assertMentions(String fragment, String why) {
            assertTrue(status.contains(fragment), () -> why + "\n" + result.describe());
        }
    }

    /** Registers javaep in the C host with {@code env} set, expecting it to fail and ORT's CPU EP to run on. */
    static RegisterFailure registerFailure(Map<String, String> env, boolean fromLoader) throws Exception {
        NativeHosts.Result r = host(CPU_EP, "expect-register-failure", 1, env, ONE_RUN);
        return new RegisterFailure(r, expectRegisterFailure(r, fromLoader));
    }

    static String expectRegisterFailure(NativeHosts.Result r, boolean fromLoader) {
        assertEquals(0, r.exitCode(), () -> "registration should fail with a status\n" + r.describe());
        String status = r.status("STATUS code=").orElseThrow(() -> new AssertionError("no STATUS line\n" + r.describe()));
        if (fromLoader) {
            assertTrue(status.contains("msg=javaep: "), () -> "loader messages start with 'javaep: '\n" + r.describe());
        }
        assertTrue(r.line("HOST alive").isPresent(), () -> "ORT's CPU EP should still work\n" + r.describe());
        return status;
    }
}
