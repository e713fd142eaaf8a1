package dev.javaep.harness.nativehost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

/**
 * javaep.dll as Windows sees it, under wine: the real onnxruntime.dll registers it in a process
 * with no JVM configured, and must get back javaep's error status (how to set JAVAEP_JAVA_HOME)
 * instead of a crash. Skipped, with the reason shown, where mingw-w64 or wine64 is missing.
 */
class WindowsLoaderIT {

    static final String MINGW = "x86_64-w64-mingw32-gcc";
    /** Debian puts wine64 outside PATH. */
    static final String[] WINE_DIRS = {"/usr/lib/wine", "/usr/lib/x86_64-linux-gnu/wine", "/opt/wine-stable/bin"};
    /** First use of a fresh wine prefix creates it (a few seconds to a minute); later runs take about a second. */
    static final Duration WINE_TIMEOUT = Duration.ofSeconds(300);

    @Test
    void registeringWithoutAJvmReturnsAStatusThatNamesJavaepJavaHome() throws Exception {
        Optional<Path> mingw = NativeHosts.findProgram(MINGW);
        Optional<Path> wine = NativeHosts.findProgram("wine64", WINE_DIRS);
        Path dist = NativeHosts.requiredDir("javaep.dist.dir");
        Path dll = dist.resolve("javaep.dll");
        Path ortDll = NativeHosts.requiredDir("ort.native.dir").resolve("win-x64/onnxruntime.dll");
        Assumptions.assumeTrue(mingw.isPresent(), "skipped: " + MINGW + " (mingw-w64) is not on PATH");
        Assumptions.assumeTrue(wine.isPresent(), "skipped: wine64 is not on PATH nor in " + String.join(", ", WINE_DIRS));
        Assumptions.assumeTrue(Files.isRegularFile(dll), "skipped: " + dll + " was not built (ep-loader-native builds it when mingw-w64 is installed)");
        NativeHosts.requiredFile(ortDll, "generate-test-resources unpacks it from the onnxruntime jar");

        Path exe = NativeHosts.compile(mingw.get().toString(), NativeHosts.cSource("win_register_host.c"),
                "win_register_host.exe", List.of("-municode"));

        // A folder with javaep.dll alone: no javaep.properties, so no java.home and no class path.
        Path alone = Files.createDirectories(NativeHosts.targetDir().resolve("win-loader"));
        Files.copy(dll, alone.resolve("javaep.dll"), StandardCopyOption.REPLACE_EXISTING);
        Files.deleteIfExists(alone.resolve("javaep.properties"));

        // The prefix lives outside target/ (it is ~700 MB) and is reused between runs.
        Path prefix = Path.of(System.getProperty("java.io.tmpdir"), "javaep-wine-prefix-" + System.getProperty("user.name"));
        boolean fresh = !Files.isDirectory(prefix.resolve("drive_c"));
        Map<String, String> env = Map.of("WINEPREFIX", prefix.toString(), "WINEDEBUG", "-all", "WINEARCH", "win64");
        // Nothing may hand wine a usable JDK: there is no Windows JDK here, and a Linux one must not leak in.
        List<String> unset = List.of("JAVA_HOME", "JAVAEP_JAVA_HOME", "JAVAEP_CLASSPATH", "JAVAEP_JVM_OPTIONS", "JAVAEP_DEBUG");

        NativeHosts.Result r = NativeHosts.run(List.of(wine.get().toString(), exe.toString(), windowsPath(ortDll),
                windowsPath(alone.resolve("javaep.dll"))), env, unset, WINE_TIMEOUT);
        System.out.println("[wine" + (fresh ? ", fresh prefix" : "") + "] exit " + r.exitCode() + " in "
                + r.elapsed().toMillis() + " ms\n" + r.stdout());

        assertFalse(r.timedOut(), r::describe);
        assertEquals(0, r.exitCode(), () -> "expected an error status from registration (3 = crash)\n" + r.describe());
        String status = r.status("STATUS code=").orElseThrow(() -> new AssertionError("no STATUS line\n" + r.describe()));
        assertTrue(status.contains("msg=javaep: "), () -> "loader messages start with 'javaep: '\n" + r.describe());
        assertTrue(status.contains("JAVAEP_JAVA_HOME"), () -> "the message should say to set JAVAEP_JAVA_HOME\n" + r.describe());
        assertTrue(r.line("HOST alive").isPresent(), r::describe);
    }

    /** wine maps the Linux root to drive Z:. */
    static String windowsPath(Path p) {
        return "Z:" + p.toAbsolutePath().toString().replace('/', '\\');
    }
}
