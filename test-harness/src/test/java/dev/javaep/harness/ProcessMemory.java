package dev.javaep.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** This process's memory as the kernel counts it, for leak checks (Linux). */
public final class ProcessMemory {
    private ProcessMemory() {}

    /** Resident set size ({@code VmRSS} of /proc/self/status) in KiB. */
    public static long residentKib() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    return Long.parseLong(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new IllegalStateException("no VmRSS in /proc/self/status");
    }
}
