package dev.javaep.conformance.kit;

import dev.javaep.host.EpDevice;
import dev.javaep.host.Session;
import dev.javaep.host.TensorData;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Registration and session cycles with the process's resources sampled along the way. The verdict is a trend: the
 * slope over the second half of the samples, per cycle, against a limit, never one sample.
 */
final class LifecycleChecks {
    /**
     * Limits per session cycle. Native memory (RSS outside the heap) is noisier (malloc arenas, ORT's per-session
     * thread pools) than the heap, which a leak of one small object per session already exceeds.
     */
    static final double SESSION_NATIVE_KIB = 128;
    static final double SESSION_HEAP_KIB = 16;
    /**
     * The heap limit from {@link #STEADY_CYCLES} cycles on: past the warm-up the heap after a GC is flat to within
     * 0.2 KiB a session (ORT alone and JavaCpu, docs/conformance.md), and a retained object graph per session, such as
     * the +1.8 KiB JavaCpu's compiled programs once leaked through a ThreadLocal, stands out.
     */
    static final double SESSION_HEAP_KIB_STEADY = 1;
    static final int STEADY_CYCLES = 500;
    static final double SESSION_FDS = 0.05;
    static final double SESSION_THREADS = 0.05;
    /** Limits per registration cycle (registration loads and drops more: a JVM class loader, an ORT factory). */
    static final double REGISTRATION_NATIVE_KIB = 1024;
    static final double REGISTRATION_FDS = 0.2;
    static final double REGISTRATION_THREADS = 0.2;

    private LifecycleChecks() {}

    static CheckGroup group() {
        return new CheckGroup("lifecycle", "register/unregister and session cycles, with resource trends", List.of(
                new Check("lifecycle.register-cycles",
                        "register/unregister cycles keep the EP's devices and do not grow native memory, fds or threads",
                        LifecycleChecks::registerCycles),
                new Check("lifecycle.session-cycles",
                        "session create/Run/release cycles do not grow native memory, Java heap, fds or threads (second-half trend)",
                        LifecycleChecks::sessionCycles)));
    }

    private static String registerCycles(KitContext context) {
        context.unregister();
        int cycles = context.options().registrationCycles();
        int every = Math.max(1, cycles / 25);
        List<ProcessSample> samples = new ArrayList<>();
        int expected = -1;
        String name = KitContext.REGISTRATION + "-cycle";
        for (int i = 0; i < cycles; i++) {
            List<EpDevice> devices = context.register(name);
            context.env().unregisterExecutionProviderLibrary(name);
            if (expected < 0) {
                expected = devices.size();
            } else if (devices.size() != expected) {
                throw Check.fail("cycle " + i + ": " + devices.size() + " EP devices, the first cycle had " + expected);
            }
            if (i % every == 0) {
                samples.add(ProcessSample.now());
            }
        }
        return verdict(samples, every, "registration", REGISTRATION_NATIVE_KIB, Double.MAX_VALUE, REGISTRATION_FDS,
                REGISTRATION_THREADS, cycles);
    }

    private static String sessionCycles(KitContext context) {
        int cycles = context.options().sessionCycles();
        int every = samplingInterval(cycles);
        List<ProcessSample> samples = sessionCycleSamples(() -> context.session(KitContext.addModel(), true), cycles, every);
        double heapLimit = cycles >= STEADY_CYCLES ? SESSION_HEAP_KIB_STEADY : SESSION_HEAP_KIB;
        return verdict(samples, every, "session", SESSION_NATIVE_KIB, heapLimit, SESSION_FDS, SESSION_THREADS, cycles);
    }

    /** Samples every this many cycles: 40 samples over a run. */
    static int samplingInterval(int cycles) {
        return Math.max(1, cycles / 40);
    }

    /**
     * {@code cycles} times: a session from {@code open}, one Run of the probe model ({@code Add} of two [256]
     * floats), release; the process sampled every {@code every} cycles. {@link SessionCycleStudy} runs the same
     * loop with other sessions.
     */
    static List<ProcessSample> sessionCycleSamples(Supplier<Session> open, int cycles, int every) {
        float[] values = new float[256];
        Map<String, TensorData> inputs = Map.of("a", TensorData.ofFloats(new long[] {256}, values),
                "b", TensorData.ofFloats(new long[] {256}, values));
        List<ProcessSample> samples = new ArrayList<>();
        for (int i = 0; i < cycles; i++) {
            try (Session session = open.get()) {
                session.run(inputs);
            }
            if (i % every == 0) {
                samples.add(ProcessSample.now());
            }
        }
        return samples;
    }

    /** The trend line of a cycle run: per-cycle slopes over the second half, first → last values. */
    static String trend(List<ProcessSample> samples, int every, String what, int cycles) {
        ProcessSample first = samples.getFirst();
        ProcessSample last = samples.getLast();
        String malloc = first.mallocInUseKib() < 0 ? ""
                : String.format(", malloc in use %+.1f KiB, malloc free %+.1f KiB (in use %d → %d KiB, free %d → %d KiB)",
                        ProcessSample.slope(samples, every, ProcessSample::mallocInUseKib),
                        ProcessSample.slope(samples, every, ProcessSample::mallocFreeKib), first.mallocInUseKib(),
                        last.mallocInUseKib(), first.mallocFreeKib(), last.mallocFreeKib());
        return String.format("%d %s cycles, per cycle over the second half: RSS outside the heap %+.1f KiB, heap %+.1f KiB,"
                        + " fds %+.3f, threads %+.3f (RSS %d → %d KiB, heap %d → %d KiB, fds %d → %d, threads %d → %d)%s",
                cycles, what, ProcessSample.slope(samples, every, ProcessSample::outsideHeapKib),
                ProcessSample.slope(samples, every, ProcessSample::heapUsedKib),
                ProcessSample.slope(samples, every, ProcessSample::openFds),
                ProcessSample.slope(samples, every, ProcessSample::threads), first.rssKib(), last.rssKib(),
                first.heapUsedKib(), last.heapUsedKib(), first.openFds(), last.openFds(), first.threads(), last.threads(),
                malloc);
    }

    private static String verdict(List<ProcessSample> samples, int every, String what, double rssLimit, double heapLimit,
                                  double fdLimit, double threadLimit, int cycles) {
        double rss = ProcessSample.slope(samples, every, ProcessSample::outsideHeapKib);
        double heap = ProcessSample.slope(samples, every, ProcessSample::heapUsedKib);
        double fds = ProcessSample.slope(samples, every, ProcessSample::openFds);
        double threads = ProcessSample.slope(samples, every, ProcessSample::threads);
        String trend = trend(samples, every, what, cycles);
        List<String> over = new ArrayList<>();
        if (rss > rssLimit) {
            over.add(String.format("RSS outside the Java heap grows %.1f KiB per %s (limit %.0f)", rss, what, rssLimit));
        }
        if (heap > heapLimit) {
            over.add(String.format("Java heap grows %.1f KiB per %s (limit %.0f)", heap, what, heapLimit));
        }
        if (fds > fdLimit) {
            over.add(String.format("open fds grow %.3f per %s (limit %.2f)", fds, what, fdLimit));
        }
        if (threads > threadLimit) {
            over.add(String.format("threads grow %.3f per %s (limit %.2f)", threads, what, threadLimit));
        }
        if (!over.isEmpty()) {
            throw Check.fail(String.join("; ", over) + ": " + trend);
        }
        return trend;
    }
}
