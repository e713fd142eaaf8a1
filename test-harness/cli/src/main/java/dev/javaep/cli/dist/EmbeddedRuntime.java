package dev.javaep.cli.dist;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.TreeSet;
import java.util.spi.ToolProvider;
import java.util.stream.Stream;

/**
 * Puts a jlink'ed Java runtime into the distribution folder ({@code runtime/}) and points
 * {@code javaep.properties} at it relatively ({@code java.home=runtime}), so an ORT host needs no JDK
 * installed and the folder still works wherever it is copied. The modules are what {@code jdeps} finds in
 * the distribution's jars (the EP's and the CLI's), plus {@code extraModules} (JFR and the debugger agent by
 * default, for profiling and debugging EPs in a host). Runs on the JDK 25 toolchain at package time (the
 * {@code embedded-runtime} profile of test-harness/cli), whose {@code jdeps} and {@code jlink} it uses.
 *
 * <p>Usage: {@code EmbeddedRuntime DIST_DIR [EXTRA_MODULES]} (comma separated).
 */
public final class EmbeddedRuntime {
    /** The folder under the distribution, and what {@code java.home} says. */
    static final String FOLDER = "runtime";

    private EmbeddedRuntime() {}

    public static void main(String[] args) throws IOException {
        Path dist = Path.of(args[0]).toAbsolutePath();
        List<String> extra = args.length > 1 && !args[1].isBlank() ? Arrays.asList(args[1].split(",")) : List.of();
        Path runtime = dist.resolve(FOLDER);

        TreeSet<String> modules = new TreeSet<>(jdepsModules(dist.resolve("lib")));
        extra.stream().map(String::strip).filter(m -> !m.isEmpty()).forEach(modules::add);
        DistributionWriter.deleteTree(runtime);
        long start = System.nanoTime();
        run("jlink", "--add-modules", String.join(",", modules), "--strip-debug", "--no-man-pages",
                "--no-header-files", "--compress=zip-9", "--output", runtime.toString());
        double seconds = (System.nanoTime() - start) / 1e9;

        Path properties = dist.resolve("javaep.properties");
        String text = Files.readString(properties);
        String line = "java.home=" + FOLDER;
        if (!text.lines().anyMatch(l -> l.startsWith("java.home="))) {
            throw new IllegalStateException(properties + " has no java.home line to point at " + FOLDER
                    + "/: DistributionWriter must run first");
        }
        Files.writeString(properties, text.replaceFirst("(?m)^java\\.home=.*$",
                "# (" + FOLDER + "/ is the Java runtime jlink'ed into this folder; a JDK 25 path works as well)\n" + line));

        System.out.printf(Locale.ROOT, "javaep embedded runtime: %s, Java %s, modules %s: %.1f MiB (jlink %.1f s)%n",
                runtime, Runtime.version(), String.join(",", modules), DistributionSize.size(runtime) / (1024.0 * 1024.0), seconds);
    }

    /** The JDK modules the jars in {@code lib} need, by jdeps. */
    static List<String> jdepsModules(Path lib) throws IOException {
        List<String> args = new ArrayList<>(List.of("--print-module-deps", "--ignore-missing-deps", "--multi-release",
                Integer.toString(Runtime.version().feature())));
        try (Stream<Path> jars = Files.list(lib)) {
            jars.filter(p -> p.getFileName().toString().endsWith(".jar")).sorted().map(Path::toString).forEach(args::add);
        }
        String out = run("jdeps", args.toArray(String[]::new)).strip();
        String last = out.lines().reduce((a, b) -> b).orElse("");
        if (!last.matches("[\\w.]+(,[\\w.]+)*")) {
            throw new IllegalStateException("jdeps printed no module list: " + out);
        }
        return List.of(last.split(","));
    }

    private static String run(String tool, String... args) {
        ToolProvider provider = ToolProvider.findFirst(tool).orElseThrow(() -> new IllegalStateException(
                "no " + tool + " in " + System.getProperty("java.home") + ": the embedded runtime needs a JDK 25 (with "
                        + "jdk.jlink and jdk.jdeps), not a JRE"));
        StringWriter out = new StringWriter();
        StringWriter err = new StringWriter();
        int rc = provider.run(new PrintWriter(out, true), new PrintWriter(err, true), args);
        if (rc != 0) {
            throw new IllegalStateException(tool + " " + String.join(" ", args) + " failed (" + rc + "):\n" + out + err);
        }
        return out.toString();
    }
}
