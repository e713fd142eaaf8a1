package dev.javaep.conformance.kit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.function.IntToLongFunction;
import org.junit.jupiter.api.Test;

/**
 * The RSS part of {@code lifecycle.session-cycles} on synthetic samples: a native leak is flagged even when a sample at
 * either end of the second half caught a jump of the allocator or the collector, and noise whose median slope is
 * positive while RSS falls across the half is not.
 */
class NativeTrendTest {
    private static final int SAMPLES = 40;
    private static final int EVERY = 5;
    private static final LifecycleChecks.Limits LIMITS = LifecycleChecks.Limits.session(LifecycleChecks.SESSION_HEAP_KIB);

    private static List<ProcessSample> samples(IntToLongFunction outsideHeapKib) {
        List<ProcessSample> samples = new ArrayList<>();
        for (int i = 0; i < SAMPLES; i++) {
            long outside = outsideHeapKib.applyAsLong(i);
            samples.add(new ProcessSample(outside + 400_000, outside, 10_000, 40, 30, 8_000, 2_000, -1, -1));
        }
        return samples;
    }

    private static List<String> over(List<ProcessSample> samples) {
        return LifecycleChecks.overLimits(samples, EVERY, "session", LIMITS, DeviceMemoryProbe.Labels.NONE);
    }

    @Test
    void aLeakOfOneMebibytePerSessionIsFlaggedWithItsGrowth() {
        List<String> over = over(samples(i -> 100_000 + i * EVERY * 1024L));
        assertEquals(1, over.size(), over::toString);
        assertTrue(over.getFirst().startsWith("RSS outside the Java heap grows 1024.0 KiB per session (limit 128; +1024.0"
                + " across the second half, +1024.0 across the run)"), over::toString);
    }

    @Test
    void aLeakIsFlaggedWhenTheHalfsLastSampleCaughtAFall() {
        // the leak, and at the very last sample 150 MiB handed back at once (a trim, the collector uncommitting): the
        // half's first sample to its last shows a fall; the thirds' medians still show the leak
        List<String> over = over(samples(i -> 100_000 + i * EVERY * 1024L - (i == SAMPLES - 1 ? 150_000 : 0)));
        assertEquals(1, over.size(), over::toString);
        assertTrue(over.getFirst().startsWith("RSS outside the Java heap grows 1024.0 KiB per session"), over::toString);
        assertTrue(ProcessSample.netGrowth(samples(i -> 100_000 + i * EVERY * 1024L - (i == SAMPLES - 1 ? 150_000 : 0)),
                EVERY, ProcessSample::outsideHeapKib) > 900, over::toString);
    }

    @Test
    void memoryHeldThenHandedBackPasses() {
        // +300 KiB per session, then near the end 60 MiB handed back (memory held, not lost): most pairs of samples
        // rise, so the median slope is over the limit; RSS across the half falls
        List<ProcessSample> samples = samples(i -> 200_000 + i * EVERY * 300L - (i >= SAMPLES - 3 ? 60_000 : 0));
        assertTrue(ProcessSample.slope(samples, EVERY, ProcessSample::outsideHeapKib) > LifecycleChecks.SESSION_NATIVE_KIB,
                "the median slope alone would flag it");
        assertTrue(ProcessSample.netGrowth(samples, EVERY, ProcessSample::outsideHeapKib) < 0);
        List<String> over = over(samples);
        assertEquals(List.of(), over);
    }

    @Test
    void rssHandedBackEarlyAndGrownAgainPasses() {
        // what a CI run of 60 JavaCpu sessions saw: RSS falls by 19 MiB over the first half, then grows 160 KiB a
        // session over the second, ending below where it started: a median slope and second-half growth over the
        // limit, but nothing kept over the run
        List<ProcessSample> samples = samples(i -> i < SAMPLES / 2 ? 140_000 - i * 1_000L : 121_000 + (i - SAMPLES / 2) * 800L);
        assertTrue(ProcessSample.slope(samples, EVERY, ProcessSample::outsideHeapKib) > LifecycleChecks.SESSION_NATIVE_KIB);
        assertTrue(ProcessSample.netGrowth(samples, EVERY, ProcessSample::outsideHeapKib) > LifecycleChecks.SESSION_NATIVE_KIB);
        assertTrue(ProcessSample.medianGrowth(samples, EVERY, ProcessSample::outsideHeapKib) < 0);
        assertEquals(List.of(), over(samples));
    }

    @Test
    void flatRssPasses() {
        assertEquals(List.of(), over(samples(i -> 100_000)));
        assertEquals(0.0, ProcessSample.netGrowth(samples(i -> 100_000), EVERY, ProcessSample::outsideHeapKib));
    }
}
