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
    /**
     * Device memory per session cycle (NVML's figure, the EP allocator's InUse): a session's device buffers, streams
     * and compiled modules, kept after its release, are megabytes; 64 KiB is above NVML's noise once its 2 MiB
     * steps are spread over the cycles by the median of slopes.
     */
    static final double SESSION_DEVICE_KIB = 64;
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
                        "session create/Run/release cycles do not grow native memory, Java heap, fds, threads or device"
                                + " memory (NVML, the EP allocator's InUse) (second-half trend)",
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
        return verdict(samples, every, "registration", new Limits(REGISTRATION_NATIVE_KIB, Double.MAX_VALUE,
                REGISTRATION_FDS, REGISTRATION_THREADS, Double.MAX_VALUE), DeviceMemoryProbe.Labels.NONE, cycles);
    }

    private static String sessionCycles(KitContext context) {
        int cycles = context.options().sessionCycles();
        int every = samplingInterval(cycles);
        try (DeviceMemoryProbe device = DeviceMemoryProbe.of(context.env(), context.device())) {
            List<ProcessSample> samples = sessionCycleSamples(() -> context.session(KitContext.addModel(), true), cycles,
                    every, device);
            double heapLimit = cycles >= STEADY_CYCLES ? SESSION_HEAP_KIB_STEADY : SESSION_HEAP_KIB;
            return verdict(samples, every, "session", Limits.session(heapLimit), device.labels(), cycles);
        }
    }

    /** Growth limits per cycle: RSS outside the heap and heap in KiB, fds, threads, device memory in KiB. */
    record Limits(double nativeKib, double heapKib, double fds, double threads, double deviceKib) {
        /** A session cycle's limits, with {@code heapKib} for the Java heap (it depends on the run's length). */
        static Limits session(double heapKib) {
            return new Limits(SESSION_NATIVE_KIB, heapKib, SESSION_FDS, SESSION_THREADS, SESSION_DEVICE_KIB);
        }
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
        return sessionCycleSamples(open, cycles, every, DeviceMemoryProbe.NONE);
    }

    static List<ProcessSample> sessionCycleSamples(Supplier<Session> open, int cycles, int every, DeviceMemoryProbe device) {
        float[] values = new float[256];
        Map<String, TensorData> inputs = Map.of("a", TensorData.ofFloats(new long[] {256}, values),
                "b", TensorData.ofFloats(new long[] {256}, values));
        List<ProcessSample> samples = new ArrayList<>();
        for (int i = 0; i < cycles; i++) {
            try (Session session = open.get()) {
                session.run(inputs);
            }
            if (i % every == 0) {
                samples.add(ProcessSample.now(device));
            }
        }
        return samples;
    }

    /** The trend line of a cycle run: per-cycle slopes over the second half, first → last values. */
    static String trend(List<ProcessSample> samples, int every, String what, int cycles) {
        return trend(samples, every, what, cycles, DeviceMemoryProbe.Labels.NONE);
    }

    /** {@link #trend(List, int, String, int)} and the device memory {@code device} names. */
    static String trend(List<ProcessSample> samples, int every, String what, int cycles, DeviceMemoryProbe.Labels device) {
        ProcessSample first = samples.getFirst();
        ProcessSample last = samples.getLast();
        String malloc = first.mallocInUseKib() < 0 ? ""
                : String.format(", malloc in use %+.1f KiB, malloc free %+.1f KiB (in use %d → %d KiB, free %d → %d KiB)",
                        ProcessSample.slope(samples, every, ProcessSample::mallocInUseKib),
                        ProcessSample.slope(samples, every, ProcessSample::mallocFreeKib), first.mallocInUseKib(),
                        last.mallocInUseKib(), first.mallocFreeKib(), last.mallocFreeKib());
        // device memory first: the console cuts a line at 160 characters, and it is what a GPU run is read for
        return String.format("%d %s cycles, per cycle over the second half: %sRSS outside the heap %+.1f KiB, heap %+.1f KiB,"
                        + " fds %+.3f, threads %+.3f (RSS %d → %d KiB, heap %d → %d KiB, fds %d → %d, threads %d → %d)%s",
                cycles, what, deviceTrend(samples, every, device), ProcessSample.slope(samples, every, ProcessSample::outsideHeapKib),
                ProcessSample.slope(samples, every, ProcessSample::heapUsedKib),
                ProcessSample.slope(samples, every, ProcessSample::openFds),
                ProcessSample.slope(samples, every, ProcessSample::threads), first.rssKib(), last.rssKib(),
                first.heapUsedKib(), last.heapUsedKib(), first.openFds(), last.openFds(), first.threads(), last.threads(),
                malloc);
    }

    /** One device-memory figure of the samples: what it is, and its getter. */
    private record DeviceSeries(String label, java.util.function.ToLongFunction<ProcessSample> kib) {
        /** Whether every sample has a reading (a failed read is -1). */
        boolean complete(List<ProcessSample> samples) {
            return samples.stream().allMatch(s -> kib.applyAsLong(s) >= 0);
        }

        double slope(List<ProcessSample> samples, int every) {
            return ProcessSample.slope(samples, every, s -> kib.applyAsLong(s));
        }
    }

    private static List<DeviceSeries> deviceSeries(DeviceMemoryProbe.Labels device) {
        List<DeviceSeries> series = new ArrayList<>();
        if (!device.nvml().isEmpty()) {
            series.add(new DeviceSeries("device memory (" + device.nvml() + ")", ProcessSample::deviceUsedKib));
        }
        if (!device.allocator().isEmpty()) {
            series.add(new DeviceSeries("InUse of " + device.allocator(), ProcessSample::allocatorInUseKib));
        }
        return series;
    }

    /**
     * The device-memory part of the trend line, each part ending "; ": each source's slope and values, or why there is
     * none; "" where the run measures no device (registration cycles).
     */
    private static String deviceTrend(List<ProcessSample> samples, int every, DeviceMemoryProbe.Labels device) {
        if (!device.none().isEmpty()) {
            return "device memory: " + device.none() + "; ";
        }
        StringBuilder line = new StringBuilder();
        for (DeviceSeries series : deviceSeries(device)) {
            line.append(series.label());
            if (series.complete(samples)) {
                line.append(String.format(" %+.1f KiB (%d → %d KiB)", series.slope(samples, every),
                        series.kib().applyAsLong(samples.getFirst()), series.kib().applyAsLong(samples.getLast())));
            } else {
                line.append(": not read at every sample");
            }
            line.append("; ");
        }
        return line.toString();
    }

    private static String verdict(List<ProcessSample> samples, int every, String what, Limits limits,
                                  DeviceMemoryProbe.Labels device, int cycles) {
        List<String> over = overLimits(samples, every, what, limits, device);
        String trend = trend(samples, every, what, cycles, device);
        if (!over.isEmpty()) {
            throw Check.fail(String.join("; ", over) + ": " + trend);
        }
        return trend;
    }

    /** What grows faster than {@code limits} allow over the second half of {@code samples}; empty when nothing does. */
    static List<String> overLimits(List<ProcessSample> samples, int every, String what, Limits limits,
                                   DeviceMemoryProbe.Labels device) {
        double rss = ProcessSample.slope(samples, every, ProcessSample::outsideHeapKib);
        double heap = ProcessSample.slope(samples, every, ProcessSample::heapUsedKib);
        double fds = ProcessSample.slope(samples, every, ProcessSample::openFds);
        double threads = ProcessSample.slope(samples, every, ProcessSample::threads);
        List<String> over = new ArrayList<>();
        // RSS jumps (glibc arenas, the JIT) make a median slope over few cycles noisy: a leak also grows RSS across
        // the second half (a CI run once saw a +306 KiB slope while RSS fell over that half).
        double net = ProcessSample.netGrowth(samples, every, ProcessSample::outsideHeapKib);
        // and what it kept over the whole run: RSS handed back early and grown again in the second half (a CI run of
        // 60 JavaCpu sessions: +222.7 KiB a session over the second half while RSS ended 2.4 MiB below its start) is
        // not a leak; a leak keeps at least half its rate over the whole run
        double whole = ProcessSample.medianGrowth(samples, every, ProcessSample::outsideHeapKib);
        if (rss > limits.nativeKib() && net > limits.nativeKib() && whole > limits.nativeKib() / 2) {
            over.add(String.format("RSS outside the Java heap grows %.1f KiB per %s (limit %.0f; %+.1f across the second"
                    + " half, %+.1f across the run)", rss, what, limits.nativeKib(), net, whole));
        }
        if (heap > limits.heapKib()) {
            over.add(String.format("Java heap grows %.1f KiB per %s (limit %.0f)", heap, what, limits.heapKib()));
        }
        if (fds > limits.fds()) {
            over.add(String.format("open fds grow %.3f per %s (limit %.2f)", fds, what, limits.fds()));
        }
        if (threads > limits.threads()) {
            over.add(String.format("threads grow %.3f per %s (limit %.2f)", threads, what, limits.threads()));
        }
        for (DeviceSeries series : deviceSeries(device)) {
            double slope = series.complete(samples) ? series.slope(samples, every) : 0;
            if (slope > limits.deviceKib()) {
                over.add(String.format("%s grows %.1f KiB per %s (limit %.0f)", series.label(), slope, what, limits.deviceKib()));
            }
        }
        return over;
    }
}
