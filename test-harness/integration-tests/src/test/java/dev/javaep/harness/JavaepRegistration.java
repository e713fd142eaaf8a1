package dev.javaep.harness;

import dev.javaep.host.EpDevice;
import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * An ORT environment with javaep registered for one test class, and gone after it:
 * {@code @RegisterExtension static final JavaepRegistration JAVAEP = new JavaepRegistration("name", EPs...)}.
 * With no EP names the registration offers javaep's own EPs (the failsafe default of
 * {@code javaep.factories}); otherwise those named ({@link TestRegistrations}).
 */
public final class JavaepRegistration implements BeforeAllCallback, AfterAllCallback {
    private final String name;
    private final OrtHost.LogLevel logLevel;
    private final String[] epNames;
    private OrtEnvironment env;

    public JavaepRegistration(String name, String... epNames) {
        this(name, OrtHost.LogLevel.ERROR, epNames);
    }

    public JavaepRegistration(String name, OrtHost.LogLevel logLevel, String... epNames) {
        this.name = name;
        this.logLevel = logLevel;
        this.epNames = epNames;
    }

    @Override
    public void beforeAll(ExtensionContext context) {
        env = OrtHost.shared().createEnvironment(name, logLevel);
        if (epNames.length == 0) {
            env.registerExecutionProviderLibrary(name, TestPaths.loaderLibrary());
        } else {
            TestRegistrations.register(env, name, epNames);
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        if (env != null) {
            try {
                env.unregisterExecutionProviderLibrary(name);
            } finally {
                env.close();
                env = null;
            }
        }
    }

    public OrtEnvironment env() {
        return env;
    }

    /** The registration's device of EP {@code epName}. */
    public EpDevice device(String epName) {
        return env.epDevice(epName);
    }

    /**
     * Session options that put {@code epName}'s device first; with {@code cpuFallback} false ORT's CPU EP may take no
     * node, so a node the EP declines makes session creation fail.
     */
    public SessionOptions options(String epName, boolean cpuFallback) {
        SessionOptions options = env.createSessionOptions();
        if (!cpuFallback) {
            options.disableCpuEpFallback();
        }
        return options.appendExecutionProvider(List.of(device(epName)), Map.of());
    }

    /** A session of {@code model} on {@link #options(String, boolean)}. */
    public Session session(byte[] model, String epName, boolean cpuFallback) {
        try (SessionOptions options = options(epName, cpuFallback)) {
            return env.createSession(model, options);
        }
    }

    /** A session of the model file {@code model} on {@link #options(String, boolean)}. */
    public Session session(Path model, String epName, boolean cpuFallback) {
        try (SessionOptions options = options(epName, cpuFallback)) {
            return env.createSession(model, options);
        }
    }
}
