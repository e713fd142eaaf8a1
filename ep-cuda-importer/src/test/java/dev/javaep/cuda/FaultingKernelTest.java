package dev.javaep.cuda;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The GPU containment test's faulting kernel assembles (with ptxas where installed), so on the GPU it faults rather than failing to load. */
class FaultingKernelTest {
    @TempDir
    Path dir;

    @Test
    void assemblesWithPtxas() throws Exception {
        Optional<Path> ptxas = Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
                .map(d -> Path.of(d, "ptxas")).filter(Files::isExecutable).findFirst();
        Assumptions.assumeTrue(ptxas.isPresent(), "ptxas was not found on PATH, so the PTX syntax was not checked");
        Path ptx = Files.writeString(dir.resolve("fault.ptx"), FaultingKernel.PTX);
        Process p = new ProcessBuilder(ptxas.get().toString(), "-arch=sm_90", ptx.toString(), "-o",
                dir.resolve("fault.cubin").toString()).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor(1, TimeUnit.MINUTES);
        assertEquals(0, p.exitValue(), out);
    }
}
