package dev.javaep.conformance.kit;

import dev.javaep.host.OrtEnvironment;
import dev.javaep.host.OrtHost;
import dev.javaep.host.Session;
import dev.javaep.host.SessionOptions;
import java.nio.file.Path;
import java.util.List;
import java.util.function.Supplier;

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
        jvmMallocKib(); // the first call starts JMX: not a session's memory
        LifecycleChecks.sessionCycleSamples(open, half, every);
        ProcessSample start = ProcessSample.now();
        long jvmStart = jvmMallocKib();
        List<ProcessSample> samples = LifecycleChecks.sessionCycleSamples(open, half, every);
        ProcessSample end = ProcessSample.now();
        long jvmEnd = jvmMallocKib();
        System.out.println(LifecycleChecks.trend(samples, every, "session", half));
        double perSession = half;
        String jvm = jvmStart < 0 ? "JVM malloc n/a (run with -XX:NativeMemoryTracking=summary)"
                : String.format("JVM malloc (NMT) %+.2f, native code's malloc (glibc in use − JVM) %+.2f",
                        (jvmEnd - jvmStart) / perSession,
                        ((end.mallocInUseKib() - start.mallocInUseKib()) - (jvmEnd - jvmStart)) / perSession);
        System.out.printf("second half, KiB per session: RSS %+.2f, glibc in use %+.2f, glibc free %+.2f, %s%n",
                (end.rssKib() - start.rssKib()) / perSession, (end.mallocInUseKib() - start.mallocInUseKib()) / perSession,
                (end.mallocFreeKib() - start.mallocFreeKib()) / perSession, jvm);
    }

    /** The JVM's malloc total from Native Memory Tracking, in KiB; -1 when NMT is off. */
    private static long jvmMallocKib() {
        try {
            Object text = java.lang.management.ManagementFactory.getPlatformMBeanServer().invoke(
                    new javax.management.ObjectName("com.sun.management:type=DiagnosticCommand"), "vmNativeMemory",
                    new Object[] {new String[] {"summary"}}, new String[] {String[].class.getName()});
            var matcher = java.util.regex.Pattern.compile("malloc: (\\d+)KB").matcher(text.toString());
            return matcher.find() ? Long.parseLong(matcher.group(1)) : -1;
        } catch (javax.management.JMException e) {
            return -1;
        }
    }

    private static SessionOptions withThreads(SessionOptions options, int threads) {
        return threads > 0 ? options.intraOpThreads(threads) : options;
    }
}
