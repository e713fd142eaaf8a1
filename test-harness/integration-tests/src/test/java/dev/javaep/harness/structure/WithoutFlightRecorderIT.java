package dev.javaep.harness.structure;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.harness.TestPaths;
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A runtime may leave {@code jdk.jfr} out (a jlink'ed app, javaep's own GPU bundle once did), and
 * {@code spi.FlightRecorder} promises that javaep then loads no event class and nothing fails. This loads every class
 * of the EP side's jars (what runs in a host's JVM) in a JVM limited to the modules javaep needs without
 * {@code jdk.jfr}: a caller that hands an event to a method typed by the event's base class makes the verifier load
 * the event class and fails there (the bridge's data transfer did).
 */
class WithoutFlightRecorderIT {
    private static final List<String> EP_SIDE_JARS =
            List.of("javaep-spi.jar", "javaep-runtime.jar", "javaep-cpu.jar", "javaep-cuda.jar", "javaep-validation.jar");

    @Test
    void theEpSideLinksWithoutFlightRecorder() throws IOException, InterruptedException {
        Path lib = TestPaths.distribution().resolve("lib");
        List<String> jars = EP_SIDE_JARS.stream().map(j -> lib.resolve(j).toString()).toList();
        String classPath = String.join(File.pathSeparator, jars) + File.pathSeparator
                + Path.of(ClassLinkCheck.class.getProtectionDomain().getCodeSource().getLocation().getPath());
        List<String> command = new ArrayList<>(List.of(
                Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "--limit-modules", "java.base,java.logging,java.management,jdk.unsupported,jdk.incubator.vector",
                "--enable-native-access=ALL-UNNAMED", "-cp", classPath, ClassLinkCheck.class.getName()));
        command.addAll(jars);
        Process child = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(child.waitFor(120, TimeUnit.SECONDS), "the class check did not finish");
        assertEquals(0, child.exitValue(), output);
        assertTrue(output.contains("classes checked: "), output);
        int checked = Integer.parseInt(output.replaceAll("(?s).*classes checked: (\\d+).*", "$1"));
        assertTrue(checked > 300, "only " + checked + " classes were checked: " + output);
    }
}
