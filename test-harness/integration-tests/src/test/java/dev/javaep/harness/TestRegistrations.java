package dev.javaep.harness;

import dev.javaep.host.OrtEnvironment;

/**
 * Registers javaep in an in-JVM test with the factories that test needs. The test classes list test
 * EPs in {@code META-INF/services} beside javaep's own, more than the 4 factories ORT takes from one
 * library, so each registration names its factories through {@code javaep.factories} (the failsafe
 * default is JavaCpu and JavaCuda; see test-harness/integration-tests/pom.xml).
 */
public final class TestRegistrations {
    private static final String FACTORIES = "javaep.factories";

    private TestRegistrations() {}

    public static void register(OrtEnvironment env, String registration, String... epNames) {
        String previous = System.getProperty(FACTORIES);
        System.setProperty(FACTORIES, String.join(",", epNames));
        try {
            env.registerExecutionProviderLibrary(registration, TestPaths.loaderLibrary());
        } finally {
            if (previous == null) {
                System.clearProperty(FACTORIES);
            } else {
                System.setProperty(FACTORIES, previous);
            }
        }
    }
}
