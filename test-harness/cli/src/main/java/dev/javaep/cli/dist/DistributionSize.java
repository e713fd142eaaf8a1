package dev.javaep.cli.dist;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.stream.Stream;

/**
 * Prints what the distribution folder holds and how big it is, as the last step of its assembly (the build's log
 * says what a release would ship): the folder's total, the loader, {@code lib/} jar by jar, and {@code runtime/}
 * when there is one.
 *
 * <p>Usage: {@code DistributionSize DIST_DIR}.
 */
public final class DistributionSize {
    private DistributionSize() {}

    public static void main(String[] args) throws IOException {
        Path dist = Path.of(args[0]).toAbsolutePath();
        System.out.print(describe(dist));
    }

    static String describe(Path dist) throws IOException {
        StringBuilder out = new StringBuilder();
        out.append(String.format(Locale.ROOT, "javaep distribution %s: %s%n", dist, mib(size(dist))));
        for (String loader : List.of("libjavaep.so", "javaep.dll")) {
            Path file = dist.resolve(loader);
            if (Files.isRegularFile(file)) {
                out.append(String.format(Locale.ROOT, "  %-28s %s%n", loader, mib(Files.size(file))));
            }
        }
        Path lib = dist.resolve("lib");
        out.append(String.format(Locale.ROOT, "  %-28s %s%n", "lib/", mib(size(lib))));
        try (Stream<Path> jars = Files.list(lib)) {
            for (Path jar : jars.sorted().toList()) {
                out.append(String.format(Locale.ROOT, "    %-26s %s%n", jar.getFileName(), mib(Files.size(jar))));
            }
        }
        Path runtime = dist.resolve(EmbeddedRuntime.FOLDER);
        if (Files.isDirectory(runtime)) {
            out.append(String.format(Locale.ROOT, "  %-28s %s%n", EmbeddedRuntime.FOLDER + "/", mib(size(runtime))));
        }
        return out.toString();
    }

    private static String mib(long bytes) {
        return String.format(Locale.ROOT, "%.2f MiB", bytes / (1024.0 * 1024.0));
    }

    /** The bytes of every regular file under {@code dir}. */
    static long size(Path dir) throws IOException {
        try (Stream<Path> files = Files.walk(dir)) {
            return files.filter(Files::isRegularFile).mapToLong(f -> {
                try {
                    return Files.size(f);
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            }).sum();
        }
    }
}
