package dev.javaep.cuda.kernel.ptx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Assembles the module with {@code ptxas} when one is on PATH. ptxas checks every instruction
 * against the file's {@code .target sm_52} whatever {@code -arch} it compiles for, so when a recent
 * ptxas (CUDA 13 dropped Maxwell) cannot compile for sm_52 itself, sm_75 stands in for it.
 */
class PtxAssemblesTest {
    private static final String OLDEST_CUDA13_ARCH = "sm_75";
    private static final Pattern SPILL = Pattern.compile("[1-9]\\d* bytes spill (stores|loads)");

    @TempDir
    Path dir;

    @ParameterizedTest
    @ValueSource(strings = {"sm_52", "sm_90"})
    void assemblesWithPtxas(String arch) throws Exception {
        Optional<Path> ptxas = onPath("ptxas");
        Assumptions.assumeTrue(ptxas.isPresent(),
                "ptxas was not found on PATH, so the PTX syntax was not checked (install the CUDA toolkit to check it)");
        Path ptx = dir.resolve("javaep.ptx");
        Files.writeString(ptx, PtxModule.source());

        Result first = run(ptxas.get(), arch, ptx);
        boolean archDropped = first.exit != 0 && arch.equals("sm_52")
                && first.output.contains("is not defined for option 'gpu-name'");
        if (archDropped) {
            System.out.println("ptxas cannot compile for sm_52 (CUDA 13 dropped it); assembling for "
                    + OLDEST_CUDA13_ARCH + " instead, still checked against .target sm_52");
        }
        Result r = archDropped ? run(ptxas.get(), OLDEST_CUDA13_ARCH, ptx) : first;
        assertEquals(0, r.exit, () -> "ptxas -arch=" + arch + " rejected the module:\n" + r.output
                + "\n--- module ---\n" + numbered(PtxModule.source()));
        if (SPILL.matcher(r.output).find()) {
            System.out.println("note: ptxas spills registers to local memory (slower, not wrong):\n" + r.output);
        }
        System.out.println("ptxas -arch=" + (archDropped ? OLDEST_CUDA13_ARCH : arch) + ":\n"
                + registerSummary(r.output));
    }

    private record Result(int exit, String output) {}

    private Result run(Path ptxas, String arch, Path ptx) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>(List.of(ptxas.toString(), "-arch=" + arch, "--verbose",
                "--warn-on-spills", ptx.toString(), "-o", dir.resolve(arch + ".cubin").toString()));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(2, TimeUnit.MINUTES)) {
            p.destroyForcibly();
            throw new AssertionError("ptxas did not finish in 2 minutes");
        }
        return new Result(p.exitValue(), out);
    }

    /** "entry: N registers" per kernel from ptxas --verbose. */
    private static String registerSummary(String verbose) {
        StringBuilder s = new StringBuilder();
        String entry = null;
        for (String line : verbose.lines().toList()) {
            int at = line.indexOf("Compiling entry function '");
            if (at >= 0) {
                entry = line.substring(at + 26, line.indexOf('\'', at + 26));
            } else if (entry != null && line.contains("Used ")) {
                s.append("  ").append(entry).append(": ").append(line.substring(line.indexOf("Used "))).append('\n');
                entry = null;
            }
        }
        return s.toString();
    }

    private static String numbered(String text) {
        StringBuilder s = new StringBuilder();
        List<String> lines = text.lines().toList();
        for (int i = 0; i < lines.size(); i++) {
            s.append(i + 1).append('\t').append(lines.get(i)).append('\n');
        }
        return s.toString();
    }

    private static Optional<Path> onPath(String tool) {
        String path = System.getenv("PATH");
        if (path == null) {
            return Optional.empty();
        }
        for (String d : path.split(File.pathSeparator)) {
            Path candidate = Path.of(d, tool);
            if (Files.isExecutable(candidate)) {
                return Optional.of(candidate);
            }
        }
        return Optional.empty();
    }
}
