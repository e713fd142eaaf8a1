package dev.javaep.harness.nativehost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;

/**
 * A Java host that does not give javaep native access: onnxruntime4j on the module path with
 * {@code --enable-native-access=com.microsoft.onnxruntime} (what a modular app grants ORT's JNI library), javaep
 * in an unnamed module, loaded by libjavaep from the distribution's class path. Run in child JVMs of the build's
 * JDK 25 ({@link OnnxRuntime4jRegisterHost}).
 */
class NativeAccessIT {

    static final String CPU_EP = "JavaCpuExecutionProvider";
    static final String FLAG = "--enable-native-access=ALL-UNNAMED";
    static final Duration ONE_RUN = Duration.ofSeconds(120);

    static Path java;
    static Path hostClasses;
    static Path ortJar;
    static Path ortNative;
    static Path loader;

    @BeforeAll
    static void prepare() throws Exception {
        java = NativeHosts.requiredFile(Path.of(System.getProperty("java.home"), "bin", "java"), "the test JVM's own java");
        Path dist = NativeHosts.requiredDir("javaep.dist.dir");
        loader = NativeHosts.requiredFile(dist.resolve("libjavaep.so"), "the package phase copies it");
        ortJar = NativeHosts.requiredFile(dist.resolve("lib/onnxruntime.jar"), "the package phase copies it");
        ortNative = NativeHosts.requiredDir("ort.native.dir").resolve("linux-x64");
        // The host class alone: the test classes' META-INF/services would offer javaep test EPs the host cannot load.
        Path classes = NativeHosts.requiredDir("javaep.test.classes.dir");
        String packageDir = OnnxRuntime4jRegisterHost.class.getPackageName().replace('.', '/');
        hostClasses = NativeHosts.targetDir().resolve("ort4j-host");
        Files.createDirectories(hostClasses.resolve(packageDir));
        try (Stream<Path> files = Files.list(classes.resolve(packageDir))) {
            for (Path f : files.filter(f -> f.getFileName().toString().startsWith(
                    OnnxRuntime4jRegisterHost.class.getSimpleName())).toList()) {
                Files.copy(f, hostClasses.resolve(packageDir).resolve(f.getFileName()), StandardCopyOption.REPLACE_EXISTING);
            }
        }
    }

    static NativeHosts.Result host(String... jvmOptions) throws Exception {
        List<String> cmd = new ArrayList<>(List.of(java.toString(), "-Donnxruntime.native.path=" + ortNative,
                "-p", ortJar.toString(), "--add-modules", "com.microsoft.onnxruntime"));
        cmd.addAll(List.of(jvmOptions));
        cmd.addAll(List.of("-cp", hostClasses.toString(), OnnxRuntime4jRegisterHost.class.getName(), loader.toString()));
        NativeHosts.Result r = NativeHosts.run(cmd, Map.of("JAVAEP_FACTORIES", CPU_EP), CHostIT.LOADER_ENV, ONE_RUN);
        System.out.println("[" + String.join(" ", jvmOptions) + "] exit " + r.exitCode() + "\n" + r.stdout() + r.stderr());
        assertEquals(0, r.exitCode(), r::describe);
        assertTrue(r.line("HOST alive").isPresent(), r::describe);
        return r;
    }

    @Test
    @DisplayName("without the flag (the JDK's default, warn): javaep works and the JDK's warning names the flag")
    void warnsWithoutTheFlag() throws Exception {
        NativeHosts.Result r = host("--enable-native-access=com.microsoft.onnxruntime");
        assertTrue(r.line("REGISTERED ").orElseThrow().contains(CPU_EP), r::describe);
        assertTrue(r.stderr().contains("javaep-runtime.jar") && r.stderr().contains("Use " + FLAG),
                () -> "the JDK should warn about javaep's jar and name the flag\n" + r.describe());
    }

    @Test
    @DisplayName("with native access denied: registration fails with a status that names the flag")
    void deniedNamesTheFlag() throws Exception {
        NativeHosts.Result r = host("--enable-native-access=com.microsoft.onnxruntime", "--illegal-native-access=deny");
        String status = r.status("STATUS ").orElseThrow(() -> new AssertionError(
                "registration must fail, not succeed without javaep's EPs\n" + r.describe()));
        assertTrue(status.contains("denies javaep native access"), r::describe);
        assertTrue(status.contains("start it with " + FLAG), () -> "the status should name the flag\n" + r.describe());
    }

    @Test
    @DisplayName("with the flag: javaep works, no warning")
    void theFlagFixesIt() throws Exception {
        NativeHosts.Result r = host("--enable-native-access=com.microsoft.onnxruntime,ALL-UNNAMED",
                "--illegal-native-access=deny");
        assertTrue(r.line("REGISTERED ").orElseThrow().contains(CPU_EP), r::describe);
        assertFalse(r.stderr().contains("restricted method"), r::describe);
    }
}
