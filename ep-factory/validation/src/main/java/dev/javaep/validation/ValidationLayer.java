package dev.javaep.validation;

import static java.lang.foreign.ValueLayout.ADDRESS;
import static java.lang.foreign.ValueLayout.JAVA_LONG;

import dev.javaep.boot.EpLibraryLayer;
import dev.javaep.bridge.OrtRuntime;
import dev.javaep.ort.OrtApi;
import dev.javaep.ort.OrtApiBase;
import dev.javaep.ort.OrtEpApi;
import dev.javaep.ort.OrtErrorCode;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.EpLog;
import dev.javaep.spi.EpLogger;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.SymbolLookup;
import java.lang.invoke.MethodHandle;
import java.nio.file.Path;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;

/**
 * libjavaep in front of someone else's plugin EP library (issue 14, part 2; docs/validation-layer.md): ORT gets the
 * layer's proxies of the library's {@code OrtEpFactory}s; every call through them is checked and forwarded unchanged.
 */
@SuppressWarnings("restricted") // the layer stands between two C libraries: raw pointers and native calls are its work
public final class ValidationLayer implements EpLibraryLayer {
    private static final Linker LINKER = Linker.nativeLinker();
    private static final FunctionDescriptor CREATE_EP_FACTORIES =
            FunctionDescriptor.of(ADDRESS, ADDRESS, ADDRESS, ADDRESS, ADDRESS, JAVA_LONG, ADDRESS);
    private static final FunctionDescriptor RELEASE_EP_FACTORY = FunctionDescriptor.of(ADDRESS, ADDRESS);

    /** The wrapped libraries' ReleaseEpFactory, per live proxy factory. */
    private final Map<Proxy, MethodHandle> factories = new ConcurrentHashMap<>();
    private final Map<Path, SymbolLookup> libraries = new ConcurrentHashMap<>();
    private volatile boolean shutdownHookAdded;
    /** Per ORT image (its OrtApiBase): the tables are copied once and kept, as ORT keeps its own. */
    private final Map<Long, ApiInterception> interceptions = new ConcurrentHashMap<>();

    private ApiInterception interception(MemorySegment ortApiBase) {
        return interceptions.computeIfAbsent(ortApiBase.address(), _ -> new ApiInterception(ortApiBase));
    }

    @Override
    public void createEpFactories(Path library, String registrationName, MemorySegment ortApiBase,
                                  MemorySegment defaultLogger, MemorySegment factoriesOut, long maxFactories,
                                  MemorySegment numFactoriesOut) {
        OrtApiBase base = new OrtApiBase(ortApiBase);
        ApiInterception interception = interception(ortApiBase);
        // javaep's own runtime record uses the tables the wrapped library gets: when that library is libjavaep (in this
        // JVM), its registration installs the same tables, not what would look like a second ORT.
        int version = base.negotiate().version();
        OrtApi api = new OrtApi(interception.api(version), version);
        OrtRuntime.install(new OrtRuntime(api, new OrtEpApi(api), base.versionString(), defaultLogger));
        Settings settings = settings(api);
        Settings.current = settings;
        addShutdownHook();

        SymbolLookup symbols = libraries.computeIfAbsent(library.toAbsolutePath(),
                path -> SymbolLookup.libraryLookup(path, Arena.global()));
        MethodHandle create = LINKER.downcallHandle(symbol(symbols, library, "CreateEpFactories"), CREATE_EP_FACTORIES);
        MethodHandle release = LINKER.downcallHandle(symbol(symbols, library, "ReleaseEpFactory"), RELEASE_EP_FACTORY);
        MemorySegment status;
        try (Arena arena = Arena.ofConfined()) {
            status = (MemorySegment) create.invokeExact(arena.allocateFrom(registrationName), interception.apiBase(),
                    defaultLogger, factoriesOut, maxFactories, numFactoriesOut);
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
        if (!status.equals(MemorySegment.NULL)) {
            settings.statuses().log("CreateEpFactories", status.address());
            throw api.toException(status);
        }
        long count = numFactoriesOut.reinterpret(8).get(JAVA_LONG, 0);
        if (count < 0 || count > maxFactories) {
            Violations.report(Violation.COUNT_OUT_OF_RANGE, "CreateEpFactories", "set *num_factories to " + count
                    + " with room for " + maxFactories);
            throw new OrtException(OrtErrorCode.FAIL, "javaep validation: " + library + " returned " + count + " factories");
        }
        MemorySegment out = factoriesOut.reinterpret(maxFactories * 8);
        for (int i = 0; i < count; i++) {
            long vendor = out.getAtIndex(JAVA_LONG, i);
            if (vendor == 0) {
                Violations.report(Violation.OUT_PARAMETER_UNSET, "CreateEpFactories", "factory " + i + " of " + count + " is NULL");
                throw new OrtException(OrtErrorCode.FAIL, "javaep validation: " + library + " returned a NULL factory");
            }
            Proxy proxy = Proxy.create(ObjectKind.FACTORY, vendor, null, settings.stubs(), settings.knownVersion());
            factories.put(proxy, release);
            out.setAtIndex(JAVA_LONG, i, proxy.address);
        }
        EpLog.info("javaep validation: " + library + " registered as " + registrationName + " with " + count
                + " factory(ies), each behind the layer's proxy" + (settings.strict() ? " (strict)" : "")
                + (settings.trace() != null ? "; tracing to " + settings.trace().file() : ""));
    }

    @Override
    public boolean owns(MemorySegment factory) {
        Proxy proxy = Proxy.find(ObjectKind.FACTORY, factory.address());
        return proxy != null && factories.containsKey(proxy);
    }

    @Override
    public long releaseEpFactory(MemorySegment factory) {
        Proxy proxy = Proxy.find(ObjectKind.FACTORY, factory.address());
        MethodHandle release = factories.remove(proxy);
        Set<Proxy> leaked = proxy.release();
        if (!leaked.isEmpty()) {
            Violations.report(Violation.LEAK, "ReleaseEpFactory", leaked.size() + " object(s) made through "
                    + proxy.describe() + " still live at its release: " + leaked.stream().map(Proxy::describe).toList());
        }
        long status;
        try {
            status = ((MemorySegment) release.invokeExact(MemorySegment.ofAddress(proxy.vendor))).address();
        } catch (Throwable t) {
            throw OrtApi.rethrow(t);
        }
        if (status != 0) {
            Settings.current.statuses().log("ReleaseEpFactory", status);
        }
        if (factories.isEmpty()) {
            finish();
        }
        return status;
    }

    /** Writes the trace (when tracing) and the summary of what was found. */
    private static void finish() {
        Settings settings = Settings.current;
        if (settings != null && settings.trace() != null) {
            settings.trace().write();
        }
        long total = Violations.total();
        EpLog.log(total == 0 ? EpLogger.Level.INFO : EpLogger.Level.WARNING,
                "javaep validation: " + total + " violation(s) so far" + (total == 0 ? "" : ": " + Violations.counts()));
    }

    private synchronized void addShutdownHook() {
        if (!shutdownHookAdded) {
            shutdownHookAdded = true;
            Runtime.getRuntime().addShutdownHook(new Thread(() -> {
                Settings settings = Settings.current;
                if (settings != null && settings.trace() != null) {
                    settings.trace().close();
                }
            }, "javaep-validation-trace"));
        }
    }

    private static Settings settings(OrtApi api) {
        String strict = Settings.setting("javaep.validate.strict", "JAVAEP_VALIDATE_STRICT");
        String slow = Settings.setting("javaep.validate.slow.ms", "JAVAEP_VALIDATE_SLOW_MS");
        Settings previous = Settings.current;
        Stubs stubs = previous != null ? previous.stubs() : new Stubs();
        Trace trace = file("javaep.validate.trace", "JAVAEP_VALIDATE_TRACE", previous, Settings::trace, Trace::file,
                Trace::new);
        if (previous != null && previous.trace() != null && previous.trace() != trace) {
            previous.trace().close(); // a re-registration that traces elsewhere, or not at all
        }
        return new Settings(strict != null && (strict.equals("1") || strict.equalsIgnoreCase("true")),
                (slow == null ? 1000 : Long.parseLong(slow)) * 1_000_000L, trace,
                new StatusReader(api), stubs, OrtApi.COMPILED_API_VERSION,
                file("javaep.validate.breadcrumbs", "JAVAEP_VALIDATE_BREADCRUMBS", previous, Settings::breadcrumbs,
                        Breadcrumbs::file, Breadcrumbs::new),
                file(ReportFile.PROPERTY, ReportFile.ENVIRONMENT, previous, Settings::reports, ReportFile::file,
                        ReportFile::new));
    }

    /**
     * The file a setting names, opened: the previous registration's when it names the same file (a re-registration
     * goes on writing the trace and the breadcrumbs it started), else a new one; null when not set.
     */
    private static <T> T file(String property, String env, Settings previous, Function<Settings, T> current,
                              Function<T, Path> fileOf, Function<Path, T> open) {
        String setting = Settings.setting(property, env);
        if (setting == null) {
            return null;
        }
        Path path = Path.of(setting);
        T before = previous == null ? null : current.apply(previous);
        return before != null && fileOf.apply(before).equals(path) ? before : open.apply(path);
    }

    private static MemorySegment symbol(SymbolLookup symbols, Path library, String name) {
        return symbols.find(name).orElseThrow(() -> new OrtException(OrtErrorCode.INVALID_ARGUMENT,
                "javaep validation: " + library + " exports no " + name + "; it is not a plugin EP library"));
    }
}
