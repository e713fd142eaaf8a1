package dev.javaep.boot;

import dev.javaep.bridge.EpFactoryBridge;
import dev.javaep.bridge.OrtRuntime;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiBase;
import dev.javaep.ort.OrtEpApi;
import dev.javaep.spi.EpLog;
import dev.javaep.spi.ExecutionProviderFactory;
import dev.javaep.spi.FactoryContext;
import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;

/** The library's two ORT entry points, in Java: negotiate the API, discover factories, hand them to ORT. */
final class EpLibrary {
    private EpLibrary() {}

    static void createEpFactories(String registrationName, MemorySegment apiBase, MemorySegment defaultLogger,
                                  MemorySegment factoriesOut, long maxFactories, MemorySegment numFactoriesOut) {
        Path wrapped = INSIDE_LAYER.get() ? null : validatedLibrary();
        if (wrapped != null) {
            // The wrapped library may be (a copy of) libjavaep: while the layer calls its CreateEpFactories on this
            // thread, that nested call offers javaep's Java EPs instead of wrapping again.
            INSIDE_LAYER.set(true);
            try {
                layer().createEpFactories(wrapped, registrationName, apiBase, defaultLogger, factoriesOut, maxFactories,
                        numFactoriesOut);
            } finally {
                INSIDE_LAYER.set(false);
            }
            return;
        }
        OrtApiBase base = new OrtApiBase(apiBase);
        OrtApi api = base.negotiate();
        OrtRuntime runtime = OrtRuntime.install(new OrtRuntime(api, new OrtEpApi(api), base.versionString(), defaultLogger));
        MemorySegment count = numFactoriesOut.reinterpret(ValueLayout.JAVA_LONG.byteSize());
        count.set(ValueLayout.JAVA_LONG, 0, 0L);

        List<ExecutionProviderFactory> factories = discover(maxFactories);
        MemorySegment out = factoriesOut.reinterpret(maxFactories * ValueLayout.ADDRESS.byteSize());
        List<MemorySegment> created = new ArrayList<>();
        try {
            for (ExecutionProviderFactory factory : factories) {
                try {
                    factory.initialize(new FactoryContext(registrationName, api.version(), runtime.ortVersion(),
                            EpLog.logger()));
                    created.add(EpFactoryBridge.create(factory, runtime));
                } catch (RuntimeException | Error e) {
                    throw new IllegalStateException("javaep: execution provider factory " + factory.getClass().getName()
                            + " failed to start: " + e + "; fix it or remove its jar from javaep's class path", e);
                }
            }
        } catch (RuntimeException | Error e) {
            created.forEach(EpFactoryBridge::release);
            throw e;
        }
        for (int i = 0; i < created.size(); i++) {
            out.setAtIndex(ValueLayout.ADDRESS, i, created.get(i));
        }
        count.set(ValueLayout.JAVA_LONG, 0, created.size());
    }

    /** Releases {@code factory}; returns the wrapped library's status when it is a layer's proxy (0 = success). */
    static long releaseEpFactory(MemorySegment factory) {
        EpLibraryLayer layer = loadedLayer;
        if (layer != null && layer.owns(factory)) {
            return layer.releaseEpFactory(factory);
        }
        EpFactoryBridge.release(factory);
        return 0L;
    }

    /** The plugin EP library the validation layer wraps: {@value #VALIDATE_PROPERTY}, {@value #VALIDATE_ENV}, or javaep.properties. */
    static final String VALIDATE_PROPERTY = "javaep.validate.library";
    static final String VALIDATE_ENV = "JAVAEP_VALIDATE";
    private static final String VALIDATE_KEY = "validate.library";
    private static final ThreadLocal<Boolean> INSIDE_LAYER = ThreadLocal.withInitial(() -> false);
    private static volatile EpLibraryLayer loadedLayer;

    /** The library to validate, or null when none is configured (the usual case: javaep offers its own EPs). */
    static Path validatedLibrary() {
        String named = System.getProperty(VALIDATE_PROPERTY, System.getenv(VALIDATE_ENV));
        if (named != null && !named.isBlank()) {
            return Path.of(named.strip());
        }
        // The loader passes its folder as javaep.home only when it boots the JVM; a joined JVM uses the property.
        String home = System.getProperty("javaep.home");
        if (home == null) {
            return null;
        }
        Path file = Path.of(home, "javaep.properties");
        if (!Files.isRegularFile(file)) {
            return null;
        }
        Properties properties = new Properties();
        try (Reader reader = Files.newBufferedReader(file)) {
            properties.load(reader);
        } catch (IOException e) {
            throw new UncheckedIOException("javaep: cannot read " + file, e);
        }
        String value = properties.getProperty(VALIDATE_KEY);
        return value == null || value.isBlank() ? null : Path.of(home).resolve(value.strip());
    }

    private static synchronized EpLibraryLayer layer() {
        if (loadedLayer == null) {
            loadedLayer = ServiceLoader.load(EpLibraryLayer.class, EpLibrary.class.getClassLoader()).findFirst()
                    .orElseThrow(() -> new IllegalStateException("javaep: " + VALIDATE_ENV + "/" + VALIDATE_PROPERTY
                            + " asks for the validation layer, but javaep-validation is not on javaep's class path ("
                            + System.getProperty("java.class.path") + ")"));
        }
        return loadedLayer;
    }

    /** The system property (or, when unset, environment variable) that picks which factories a registration offers. */
    static final String FACTORIES_PROPERTY = "javaep.factories";
    static final String FACTORIES_ENV = "JAVAEP_FACTORIES";

    /**
     * Factories on javaep's class path, in class-path order, or only those named (by EP name, comma
     * separated) in {@value #FACTORIES_PROPERTY} / {@value #FACTORIES_ENV}, read at each registration.
     * ORT takes at most {@code max}: more is an error that says how to choose, never a silent drop.
     */
    static List<ExecutionProviderFactory> discover(long max) {
        List<ExecutionProviderFactory> found = new ArrayList<>();
        ServiceLoader<ExecutionProviderFactory> loader =
                ServiceLoader.load(ExecutionProviderFactory.class, EpLibrary.class.getClassLoader());
        try {
            for (ExecutionProviderFactory factory : loader) {
                found.add(factory);
            }
        } catch (ServiceConfigurationError e) {
            throw new IllegalStateException("javaep: an execution provider factory on the class path could not be loaded: "
                    + e.getMessage(), e);
        }
        if (found.isEmpty()) {
            throw new IllegalStateException("javaep: no execution provider factory found on javaep's class path ("
                    + System.getProperty("java.class.path") + "); set class.path in javaep.properties or JAVAEP_CLASSPATH");
        }
        List<String> names = found.stream().map(ExecutionProviderFactory::name).toList();
        String wanted = System.getProperty(FACTORIES_PROPERTY, System.getenv(FACTORIES_ENV));
        List<ExecutionProviderFactory> factories = found;
        if (wanted != null && !wanted.isBlank()) {
            factories = new ArrayList<>();
            for (String name : wanted.split(",")) {
                String trimmed = name.strip();
                if (trimmed.isEmpty()) {
                    continue;
                }
                int index = names.indexOf(trimmed);
                if (index < 0) {
                    throw new IllegalStateException("javaep: " + FACTORIES_PROPERTY + "/" + FACTORIES_ENV + " names " + trimmed
                            + ", but javaep's class path offers " + names + "; fix the name or add the EP's jar to javaep's class"
                            + " path (class.path in javaep.properties, or JAVAEP_CLASSPATH)");
                }
                factories.add(found.get(index));
            }
        }
        if (factories.size() > max) {
            throw new IllegalStateException("javaep: " + factories.size() + " execution provider factories " + names
                    + " but ORT takes at most " + max + " from one library; choose which this registration offers with "
                    + FACTORIES_ENV + " (or -D" + FACTORIES_PROPERTY + "), e.g. " + FACTORIES_ENV + "=" + names.getFirst());
        }
        return factories;
    }
}
