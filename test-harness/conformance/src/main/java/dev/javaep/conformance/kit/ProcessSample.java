package dev.javaep.conformance.kit;

import static java.lang.foreign.ValueLayout.JAVA_LONG;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.FunctionDescriptor;
import java.lang.foreign.Linker;
import java.lang.foreign.MemoryLayout;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.StructLayout;
import java.lang.invoke.MethodHandle;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.ToDoubleFunction;
import java.util.stream.Stream;

/**
 * The child JVM's resources at one moment (Linux {@code /proc/self}), after a GC: resident memory, the part of it
 * outside the Java heap (where a native leak shows: RSS minus the heap's committed size, which the collector grows
 * and shrinks on its own), the Java heap in use (where a Java EP's leak shows), open file descriptors and threads;
 * and glibc's malloc split into what is in use and what its arenas hold free ({@code mallinfo2}, -1 without glibc
 * 2.33+): RSS that grows while the in-use part stays flat is the allocator keeping freed memory, not a leak. And the
 * EP's device memory where a {@link DeviceMemoryProbe} can read it: NVML's figure ({@code deviceUsedKib}) and the
 * {@code InUse} of the EP's device allocator ({@code allocatorInUseKib}), each -1 where there is no such source.
 */
record ProcessSample(long rssKib, long outsideHeapKib, long heapUsedKib, int openFds, int threads, long mallocInUseKib,
                     long mallocFreeKib, long deviceUsedKib, long allocatorInUseKib) {
    /**
     * {@code struct mallinfo2}: ten {@code size_t}s; in use is uordblks (7, in the arenas) plus hblkhd (4, mmapped
     * chunks), free is fordblks (8, held by the arenas).
     */
    private static final StructLayout MALLINFO2 = MemoryLayout.structLayout(
            java.util.stream.IntStream.range(0, 10).mapToObj(i -> JAVA_LONG.withName("f" + i)).toArray(MemoryLayout[]::new));
    private static final MethodHandle MALLINFO = Linker.nativeLinker().defaultLookup().find("mallinfo2")
            .map(f -> Linker.nativeLinker().downcallHandle(f, FunctionDescriptor.of(MALLINFO2)))
            .orElse(null);

    static ProcessSample now() {
        return now(DeviceMemoryProbe.NONE);
    }

    static ProcessSample now(DeviceMemoryProbe device) {
        System.gc();
        var usage = ManagementFactory.getMemoryMXBean().getHeapMemoryUsage();
        long heap = usage.getUsed() >> 10;
        long committed = usage.getCommitted() >> 10;
        long rss = -1;
        int threads = -1;
        try {
            for (String line : Files.readAllLines(Path.of("/proc/self/status"))) {
                if (line.startsWith("VmRSS:")) {
                    rss = Long.parseLong(line.replaceAll("[^0-9]", ""));
                } else if (line.startsWith("Threads:")) {
                    threads = Integer.parseInt(line.replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read /proc/self/status (the lifecycle checks need Linux)", e);
        }
        int fds;
        try (Stream<Path> list = Files.list(Path.of("/proc/self/fd"))) {
            fds = (int) list.count() - 1; // the listing's own descriptor
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        long[] malloc = mallocKib();
        return new ProcessSample(rss, rss - committed, heap, fds, threads, malloc[0], malloc[1], device.deviceUsedKib(),
                device.allocatorInUseKib());
    }

    /** glibc's bytes in use and free in its arenas, in KiB; {-1, -1} where {@code mallinfo2} is missing. */
    private static long[] mallocKib() {
        if (MALLINFO == null) {
            return new long[] {-1, -1};
        }
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment info = (MemorySegment) MALLINFO.invokeExact((java.lang.foreign.SegmentAllocator) arena);
            return new long[] {(info.getAtIndex(JAVA_LONG, 7) + info.getAtIndex(JAVA_LONG, 4)) >> 10,
                    info.getAtIndex(JAVA_LONG, 8) >> 10};
        } catch (Throwable t) {
            return new long[] {-1, -1};
        }
    }

    /**
     * The slope of {@code metric} per cycle over the second half of {@code samples} (taken every {@code every}
     * cycles): the first half is warm-up (JIT, pools, caches) and a leak is what keeps growing after. Theil–Sen (the
     * median of the slopes between every two samples), so one jump of the allocator or the collector does not make a
     * trend, while a steady growth does.
     */
    static double slope(List<ProcessSample> samples, int every, ToDoubleFunction<ProcessSample> metric) {
        List<ProcessSample> tail = samples.subList(samples.size() / 2, samples.size());
        int n = tail.size();
        if (n < 2) {
            return 0;
        }
        double[] slopes = new double[n * (n - 1) / 2];
        int k = 0;
        for (int i = 0; i < n; i++) {
            for (int j = i + 1; j < n; j++) {
                slopes[k++] = (metric.applyAsDouble(tail.get(j)) - metric.applyAsDouble(tail.get(i))) / (j - i);
            }
        }
        return median(slopes) / every;
    }

    /**
     * The growth of {@code metric} per cycle across the second half of {@code samples}: from the median of its first
     * third to the median of its last third (medians, so that one sample caught at an allocator's or the collector's
     * jump at either end neither makes nor hides a trend), over the cycles between the thirds' first samples.
     */
    static double netGrowth(List<ProcessSample> samples, int every, ToDoubleFunction<ProcessSample> metric) {
        return medianGrowth(samples.subList(samples.size() / 2, samples.size()), every, metric);
    }

    /** As {@link #netGrowth}, across all of {@code samples}: from the median of their first third to their last's. */
    static double medianGrowth(List<ProcessSample> samples, int every, ToDoubleFunction<ProcessSample> metric) {
        int n = samples.size();
        if (n < 2) {
            return 0;
        }
        int third = Math.max(1, n / 3);
        return (median(values(samples.subList(n - third, n), metric)) - median(values(samples.subList(0, third), metric)))
                / ((double) (n - third) * every);
    }

    private static double[] values(List<ProcessSample> samples, ToDoubleFunction<ProcessSample> metric) {
        return samples.stream().mapToDouble(metric).toArray();
    }

    /** The median of {@code values} (sorted in place), the mean of the middle two for an even count. */
    private static double median(double[] values) {
        java.util.Arrays.sort(values);
        int mid = values.length / 2;
        return values.length % 2 == 1 ? values[mid] : (values[mid - 1] + values[mid]) / 2;
    }
}
