package dev.javaep.harness.structure;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.jar.JarEntry;
import java.util.jar.JarFile;

/**
 * Run in a JVM without {@code jdk.jfr} by {@link WithoutFlightRecorderIT}: initialises (so links and verifies) every
 * class of the jars named on the command line except the JFR event classes themselves, and prints each class that
 * fails because {@code jdk.jfr} is absent. Exit status 1 when any does.
 */
public final class ClassLinkCheck {
    private ClassLinkCheck() {}

    public static void main(String[] jars) throws IOException {
        List<String> failures = new ArrayList<>();
        int checked = 0;
        for (String jar : jars) {
            try (JarFile file = new JarFile(Path.of(jar).toFile())) {
                for (JarEntry entry : file.stream().toList()) {
                    String name = entry.getName();
                    // the event classes (the events packages and their base, spi's RecordedEvent) extend jdk.jfr.Event
                    // by design; what this checks is that nothing else makes the JVM load them
                    if (!name.endsWith(".class") || name.contains("/events/") || name.endsWith("-info.class")
                            || name.equals("dev/javaep/spi/RecordedEvent.class")) {
                        continue;
                    }
                    String className = name.substring(0, name.length() - ".class".length()).replace('/', '.');
                    checked++;
                    try {
                        Class.forName(className, true, ClassLinkCheck.class.getClassLoader());
                    } catch (Throwable t) {
                        if (needsFlightRecorder(t)) {
                            failures.add(className + ": " + t);
                        }
                        // anything else (a native library this machine lacks, a GPU) is not this check's business
                    }
                }
            }
        }
        System.out.println("classes checked: " + checked);
        failures.forEach(f -> System.out.println("needs jdk.jfr: " + f));
        System.exit(failures.isEmpty() ? 0 : 1);
    }

    private static boolean needsFlightRecorder(Throwable t) {
        for (Throwable c = t; c != null; c = c.getCause()) {
            if (c instanceof NoClassDefFoundError && String.valueOf(c.getMessage()).startsWith("jdk/jfr")) {
                return true;
            }
        }
        return false;
    }
}
