package dev.javaep.cuda.driver;

import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/** Compiles and runs the small C programs the tests use to let gcc, not javaep, decide ABI facts. */
final class Gcc {
    private Gcc() {}

    /** Where compiled test artifacts go (under the module's target/). */
    static Path workDir() throws IOException {
        return Files.createDirectories(Path.of("target", "gcc-test"));
    }

    /** Skips the calling test, with a reason, where no gcc is on the PATH. */
    static void assumeAvailable() {
        assumeTrue(run(List.of("gcc", "--version")).isPresent(),
                "gcc not found on the PATH: the C cross-checks are skipped on this machine");
    }

    /** The directory holding cuda.h: $CUDA_HOME/include, $CUDA_PATH/include or /usr/local/cuda/include. */
    static Optional<Path> cudaInclude() {
        List<Path> candidates = new ArrayList<>();
        for (String env : List.of("CUDA_HOME", "CUDA_PATH")) {
            String value = System.getenv(env);
            if (value != null && !value.isBlank()) {
                candidates.add(Path.of(value, "include"));
            }
        }
        candidates.add(Path.of("/usr/local/cuda/include"));
        return candidates.stream().filter(dir -> Files.isRegularFile(dir.resolve("cuda.h"))).findFirst();
    }

    /** Copies a test resource next to the build outputs and returns its path. */
    static Path resource(String name) throws IOException {
        Path target = workDir().resolve(name);
        try (InputStream in = Gcc.class.getResourceAsStream(name)) {
            if (in == null) {
                throw new IOException("test resource missing: " + name);
            }
            Files.write(target, in.readAllBytes());
        }
        return target;
    }

    /** Runs gcc with the arguments and fails the test (not skips) when it does not compile. */
    static void compile(List<String> arguments) {
        List<String> command = new ArrayList<>();
        command.add("gcc");
        command.addAll(arguments);
        Result result = run(command).orElseThrow(() -> new AssertionError("gcc vanished"));
        if (result.exitCode() != 0) {
            throw new AssertionError("gcc failed (" + result.exitCode() + "): " + String.join(" ", command)
                    + "\n" + result.output());
        }
    }

    record Result(int exitCode, String output) {}

    /** Runs a program; empty when it cannot be started. */
    static Optional<Result> run(List<String> command) {
        try {
            Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
            byte[] output = process.getInputStream().readAllBytes();
            if (!process.waitFor(120, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                return Optional.of(new Result(-1, "timed out"));
            }
            return Optional.of(new Result(process.exitValue(), new String(output, StandardCharsets.UTF_8)));
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
