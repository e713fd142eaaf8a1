package dev.javaep.cli.dist;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;

/**
 * Writes the distribution folder's {@code javaep.properties} and {@code bin/javaep} at build time. Runs on
 * the JDK 25 toolchain, so {@code java.home} records the JDK that built and tested javaep. Paths in
 * the class path are relative to the folder, so the folder can be moved anywhere.
 */
public final class DistributionWriter {
    /**
     * The jars the EP's JVM needs (the loader's class path): the SPI, the runtime the loader enters, the EPs and the
     * validation layer (docs/validation-layer.md; idle unless validate.library or JAVAEP_VALIDATE names a library). The
     * CLI uses all of lib/ (these, the host binding, the conformance kit, the ONNX codec, ORT's jar for its library).
     */
    static final List<String> EP_CLASS_PATH = List.of("lib/javaep-spi.jar", "lib/javaep-runtime.jar", "lib/javaep-cpu.jar",
            "lib/javaep-cuda.jar", "lib/javaep-validation.jar");

    private DistributionWriter() {}

    public static void main(String[] args) throws IOException {
        Path dist = Path.of(args[0]);
        Files.createDirectories(dist.resolve("bin"));
        String javaHome = System.getProperty("java.home");
        String properties = """
                # javaep: read by libjavaep / javaep.dll from the folder it is loaded from.
                # Environment variables override each key: JAVAEP_JAVA_HOME, JAVAEP_CLASSPATH, JAVAEP_JVM_OPTIONS.
                # The JDK (25 or newer) whose JVM is started when the host process has none:
                java.home=%s
                # Jars with javaep and any EP factories (META-INF/services/dev.javaep.spi.ExecutionProviderFactory),
                # separated by '%s'; relative entries resolve against this folder:
                class.path=%s
                # Extra JVM options, separated by spaces. ALL-SYSTEM resolves jdk.incubator.vector where the runtime has
                # it (JavaCpu's vector loops; the JVM then prints one incubator-module warning at start) and never fails
                # where it does not (JavaCpu runs its scalar loops): naming the module would stop such a JVM booting.
                jvm.options=--add-modules=ALL-SYSTEM
                # The validation layer (docs/validation-layer.md): a plugin EP library to wrap and check instead of
                # offering javaep's own EPs (relative to this folder, or absolute; JAVAEP_VALIDATE overrides it):
                #validate.library=/path/to/libvendor_ep.so
                """.formatted(javaHome.replace("\\", "\\\\"), java.io.File.pathSeparator,
                String.join(java.io.File.pathSeparator, EP_CLASS_PATH));
        Files.writeString(dist.resolve("javaep.properties"), properties);
        // A runtime/ of an earlier build: this java.home no longer names it, and EmbeddedRuntime (the
        // embedded-runtime profile, after this) makes a fresh one when the build asks for it.
        deleteTree(dist.resolve(EmbeddedRuntime.FOLDER));

        Path launcher = dist.resolve("bin/javaep");
        Files.writeString(launcher, """
                #!/bin/sh
                # javaep command line: demo, devices, node-tests, compare. Runs on the Java recorded in
                # javaep.properties (a path relative to the distribution folder, or absolute) or JAVAEP_JAVA_HOME.
                # JAVAEP_CLASSPATH's jars join lib/*: libjavaep joins this JVM and finds EP factories on its class path.
                here="$(cd "$(dirname "$0")/.." && pwd)"
                java_home="${JAVAEP_JAVA_HOME:-$(sed -n 's/^java.home=//p' "$here/javaep.properties")}"
                case "$java_home" in
                  /*) ;;
                  "") echo "javaep: no java.home in $here/javaep.properties: set JAVAEP_JAVA_HOME to a JDK 25 home" >&2; exit 2 ;;
                  *) [ -n "${JAVAEP_JAVA_HOME:-}" ] || java_home="$here/$java_home" ;;
                esac
                exec "$java_home/bin/java" --enable-native-access=ALL-UNNAMED -Xss4m --add-modules=ALL-SYSTEM \\
                  -cp "$here/lib/*${JAVAEP_CLASSPATH:+:$JAVAEP_CLASSPATH}" \\
                  dev.javaep.cli.JavaepCli --dist "$here" "$@"
                """);
        try {
            Files.setPosixFilePermissions(launcher, PosixFilePermissions.fromString("rwxr-xr-x"));
        } catch (UnsupportedOperationException e) {
            // Windows: the shell script is for POSIX systems anyway.
        }
        System.out.println("javaep distribution: " + dist.toAbsolutePath());
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (java.util.stream.Stream<Path> files = Files.walk(dir)) {
            for (Path f : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.delete(f);
            }
        }
    }
}
