package dev.javaep.harness.nativehost;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * Builds the C host programs of {@code src/test/c} and runs them as child processes.
 *
 * <p>Output goes to files, not pipes: a child may leave a daemon behind (wine's wineserver) that
 * inherits the pipe and would keep a reader waiting long after the child itself exited.
 */
final class NativeHosts {

    /** What a child process did. {@code exitCode} is -1 when it was killed for running too long. */
    record Result(List<String> command, int exitCode, boolean timedOut, Duration elapsed, String stdout,
                  String stderr) {

        /** The first stdout line starting with {@code prefix}, if any. */
        Optional<String> line(String prefix) {
            return stdout.lines().filter(l -> l.startsWith(prefix)).findFirst();
        }

        /**
         * A status printed by a host: the line starting with {@code prefix} plus any continuation
         * lines (a message may span lines) up to the next line a host prints itself.
         */
        Optional<String> status(String prefix) {
            List<String> all = stdout.lines().toList();
            for (int i = 0; i < all.size(); i++) {
                if (!all.get(i).startsWith(prefix)) continue;
                StringBuilder b = new StringBuilder(all.get(i));
                for (int j = i + 1; j < all.size() && !isHostLine(all.get(j)); j++) b.append('\n').append(all.get(j));
                return Optional.of(b.toString());
            }
            return Optional.empty();
        }

        private static boolean isHostLine(String line) {
            return HOST_LINE_PREFIXES.stream().anyMatch(line::startsWith);
        }

        List<String> lines(String prefix) {
            return stdout.lines().filter(l -> l.startsWith(prefix)).toList();
        }

        /** Everything a failed assertion should show. */
        String describe() {
            return "command: " + String.join(" ", command) + "\nexit: " + exitCode + (timedOut ? " (timed out)" : "")
                    + " after " + elapsed.toMillis() + " ms\n--- stdout ---\n" + stdout + "--- stderr ---\n" + stderr;
        }
    }

    /** Line starts of everything the C hosts print themselves. */
    static final List<String> HOST_LINE_PREFIXES = List.of("ORT ", "DEVICE ", "RUN ", "CYCLE ", "STATUS ", "HOST ",
            "REGISTERED ", "NO DEVICE", "UNEXPECTED ", "WRONG ", "SETUP ", "CRASH ");

    private NativeHosts() {}

    /** Lenient decoding: a child's output need not be valid UTF-8. */
    private static String read(Path file) throws IOException {
        return new String(Files.readAllBytes(file), StandardCharsets.UTF_8);
    }

    /** A folder named by a system property the failsafe configuration sets; fails clearly if absent. */
    static Path requiredDir(String property) {
        String value = System.getProperty(property);
        if (value == null || value.isBlank()) {
            fail("system property " + property + " is not set: run through Maven (failsafe sets it)");
        }
        Path dir = Path.of(value).toAbsolutePath();
        assertTrue(Files.isDirectory(dir), property + " = " + dir + " is not a folder");
        return dir;
    }

    static Path requiredFile(Path file, String hint) {
        assertTrue(Files.isRegularFile(file), file + " is missing: " + hint);
        return file;
    }

    /** test-harness/integration-tests/target, next to the test classes. */
    static Path targetDir() {
        return requiredDir("javaep.test.classes.dir").getParent();
    }

    /** A C source of {@code src/test/c}. */
    static Path cSource(String name) {
        String basedir = System.getProperty("basedir");
        Path root = basedir != null ? Path.of(basedir) : targetDir().getParent();
        return requiredFile(root.resolve("src/test/c").resolve(name), "the C hosts live in test-harness/integration-tests/src/test/c");
    }

    /** The program {@code name} on PATH, or in one of {@code extraDirs}. */
    static Optional<Path> findProgram(String name, String... extraDirs) {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        dirs.addAll(List.of(extraDirs));
        return dirs.stream()
                .filter(d -> !d.isEmpty())
                .map(d -> Path.of(d, name))
                .filter(Files::isExecutable)
                .findFirst();
    }

    /** Compiles one C file into {@code target/native-hosts/<output>}; fails the test on any warning. */
    static Path compile(String compiler, Path source, String output, List<String> flags) throws Exception {
        Path outDir = Files.createDirectories(targetDir().resolve("native-hosts"));
        Path exe = outDir.resolve(output);
        List<String> cmd = new ArrayList<>(List.of(compiler, "-std=c11", "-O1", "-Wall", "-Wextra", "-Werror", "-o",
                exe.toString(), source.toString()));
        cmd.addAll(flags);
        Result r = run(cmd, Map.of(), List.of(), Duration.ofSeconds(120));
        assertEquals(0, r.exitCode(), () -> "compiling " + source.getFileName() + " failed\n" + r.describe());
        return exe;
    }

    /**
     * Runs a command with a timeout. {@code env} entries are set on top of this process's
     * environment; {@code unset} names are removed first (so the developer's own JAVAEP_* settings
     * cannot leak into a test).
     */
    static Result run(List<String> command, Map<String, String> env, List<String> unset, Duration timeout)
            throws IOException, InterruptedException {
        Path outDir = Files.createDirectories(targetDir().resolve("native-hosts"));
        Path out = Files.createTempFile(outDir, "stdout-", ".txt");
        Path err = Files.createTempFile(outDir, "stderr-", ".txt");
        ProcessBuilder pb = new ProcessBuilder(command)
                .redirectOutput(out.toFile())
                .redirectError(err.toFile());
        unset.forEach(pb.environment()::remove);
        pb.environment().putAll(env);
        long start = System.nanoTime();
        Process p = pb.start();
        p.getOutputStream().close(); // no input: a host that reads stdin sees end of file
        boolean finished = p.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS);
        if (!finished) {
            // Only what we started: the child and its own descendants.
            p.descendants().forEach(ProcessHandle::destroyForcibly);
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        }
        Duration elapsed = Duration.ofNanos(System.nanoTime() - start);
        Result r = new Result(List.copyOf(command), finished ? p.exitValue() : -1, !finished, elapsed,
                read(out), read(err));
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
        return r;
    }
}
