package dev.javaep.conformance.kit;

import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * The loop of {@code lifecycle.session-cycles} as a program of its own, to compare session configurations in fresh
 * JVMs (how docs/conformance.md's table of where native memory goes over 1,000 sessions was made):
 *
 * <pre>{@code
 * java --enable-native-access=ALL-UNNAMED -cp ... dev.javaep.conformance.kit.SessionCycleStudy LIBRARY|- EP CYCLES THREADS
 * }</pre>
 *
 * {@code LIBRARY} {@code -}: ORT's CPU EP alone (nothing registered); {@code THREADS} 0: ORT's default intra-op
 * pool, otherwise {@code SetIntraOpNumThreads}. The environment (e.g. {@code MALLOC_ARENA_MAX}) is the caller's.
 * Prints the trend line {@link LifecycleChecks#trend} writes.
 */
public final class SessionCycleStudy {
    private SessionCycleStudy() {}

    public static void main(String[] args) {
        if (args.length != 4) {
            throw new IllegalArgumentException("usage: SessionCycleStudy LIBRARY|- EP CYCLES INTRA_OP_THREADS");
        }
        int cycles = Integer.parseInt(args[2]);
        int threads = Integer.parseInt(args[3]);
        int every = LifecycleChecks.samplingInterval(cycles);
        byte[] model = KitContext.addModel();
        if (args[0].equals("-")) {
            try (OrtEnvironment env = OrtHost.shared().createEnvironment("session-cycle-study", OrtHost.LogLevel.ERROR)) {
                study(() -> {
                    try (SessionOptions options = withThreads(env.createSessionOptions(), threads)) {
                        return env.createSession(model, options);
                    }
                }, cycles, every);
            }
        } else {
            KitOptions options = KitOptions.of(Path.of(args[0])).withEp(args[1]);
            try (KitContext context = new KitContext(options)) {
                study(() -> {
                    try (SessionOptions sessionOptions = withThreads(context.sessionOptions(true), threads)) {
                        return context.env().createSession(model, sessionOptions);
                    }
                }, cycles, every);
            }
        }
        System.exit(0);
    }

    /**
     * Two halves of {@code cycles / 2}: the first warms up, the second is measured. Prints the trend line of the
     * second half and, per session over it, the growth of RSS, glibc's in-use and free bytes and, with
     * {@code -XX:NativeMemoryTracking=summary}, the JVM's own malloc (which includes a Java EP's native arenas): in-use
     * malloc that grows while the JVM's stays flat is native code's (ORT's) memory.
     */
    private static void study(Supplier<Session> open, int cycles, int every) {
        int half = cycles / 2;
        nmtSummary(); // the first call starts JMX: not a session's memory
        LifecycleChecks.sessionCycleSamples(open, half, every);
        ProcessSample start = ProcessSample.now();
        String nmtStart = nmtSummary();
        long jvmStart = jvmMallocKib(nmtStart);
        Map<String, Long> categoriesStart = jvmMallocByCategoryKib(nmtStart);
        List<ProcessSample> samples = LifecycleChecks.sessionCycleSamples(open, half, every);
        ProcessSample end = ProcessSample.now();
        String nmtEnd = nmtSummary();
        long jvmEnd = jvmMallocKib(nmtEnd);
        Map<String, Long> categoriesEnd = jvmMallocByCategoryKib(nmtEnd);
        System.out.println(LifecycleChecks.trend(samples, every, "session", half));
        double perSession = half;
        String jvm = jvmStart < 0 ? "JVM malloc n/a (run with -XX:NativeMemoryTracking=summary)"
                : String.format("JVM malloc (NMT) %+.2f, native code's malloc (glibc in use − JVM) %+.2f",
                        (jvmEnd - jvmStart) / perSession,
                        ((end.mallocInUseKib() - start.mallocInUseKib()) - (jvmEnd - jvmStart)) / perSession);
        System.out.printf("second half, KiB per session: RSS %+.2f, glibc in use %+.2f, glibc free %+.2f, %s%n",
                (end.rssKib() - start.rssKib()) / perSession, (end.mallocInUseKib() - start.mallocInUseKib()) / perSession,
                (end.mallocFreeKib() - start.mallocFreeKib()) / perSession, jvm);
        // Which part of the JVM mallocs: "Other" is Unsafe/FFM native memory (a Java EP's arenas), "Compiler" and
        // "Arena Chunk" the JIT's, "Symbol"/"Class" class loading; so a Java EP's own native leak is told from warm-up.
        String byCategory = categoriesEnd.entrySet().stream()
                .map(e -> Map.entry(e.getKey(), (e.getValue() - categoriesStart.getOrDefault(e.getKey(), 0L)) / perSession))
                .filter(e -> Math.abs(e.getValue()) >= 0.05)
                .sorted(Map.Entry.comparingByValue(Comparator.comparingDouble(v -> -Math.abs(v))))
                .map(e -> String.format("%s %+.2f", e.getKey(), e.getValue()))
                .collect(Collectors.joining(", "));
        if (!categoriesEnd.isEmpty()) {
            System.out.println("second half, JVM malloc by NMT category, KiB per session: "
                    + (byCategory.isEmpty() ? "all below 0.05" : byCategory));
        }
    }

    /**
     * NMT's malloc and arena memory per category ({@code Other}, {@code Compiler}, …) in KiB; empty when NMT is off.
     * A category is a block that starts with {@code -  Name (reserved=…}; its {@code (malloc=…KB} and {@code (arena=…KB}
     * lines may come after others (classes, threads).
     */
    private static Map<String, Long> jvmMallocByCategoryKib(String nmtSummary) {
        Map<String, Long> categories = new TreeMap<>();
        Pattern name = Pattern.compile("^-\\s+([A-Za-z][A-Za-z ]*?) \\(reserved=");
        Pattern malloc = Pattern.compile("\\((?:malloc|arena)=(\\d+)KB");
        String category = null;
        for (String line : nmtSummary.split("\\R")) {
            var header = name.matcher(line);
            if (header.find()) {
                category = header.group(1);
            }
            var amount = malloc.matcher(line);
            while (category != null && amount.find()) {
                categories.merge(category, Long.parseLong(amount.group(1)), Long::sum);
            }
        }
        return categories;
    }

    /** The JVM's malloc total from Native Memory Tracking, in KiB; -1 when NMT is off. */
    private static long jvmMallocKib(String nmtSummary) {
        var matcher = Pattern.compile("malloc: (\\d+)KB").matcher(nmtSummary);
        return matcher.find() ? Long.parseLong(matcher.group(1)) : -1;
    }

    /** {@code jcmd VM.native_memory summary}'s text, empty when NMT is off. */
    private static String nmtSummary() {
        try {
            return java.lang.management.ManagementFactory.getPlatformMBeanServer().invoke(
                    new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()}).toString();
        } catch (javax.management.JMException e) {
            return "";
        }
    }

    private static SessionOptions withThreads(SessionOptions options, int threads) {
        return threads > 0 ? options.intraOpThreads(threads) : options;
    }
}
