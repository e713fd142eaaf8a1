package dev.javaep.examples.vulkan;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The summary every benchmark table here prints: which sample is the median and which the 99th percentile. */
class StatsTest {
    @Test
    void theMedianIsTheUpperMiddleAndP99TheNearestRank() {
        // 200 samples, as the benchmarks' defaults take them, in reverse order: Stats sorts a copy
        double[] micros = IntStream.rangeClosed(1, 200).map(i -> 201 - i).asDoubleStream().toArray();
        double[] given = micros.clone();
        Stats stats = Stats.of(micros);
        assertEquals(101, stats.median(), "the upper of the two middle samples (index n / 2)");
        assertEquals(198, stats.p99(), "the 198th of 200: ceil(0.99 n)");
        assertEquals(100.5, stats.mean(), 1e-9);
        assertArrayEquals(given, micros, "the caller's samples stay as they were");
    }

    @Test
    void oneSampleIsEveryStatistic() {
        Stats stats = Stats.of(new double[] {7.5});
        assertEquals(new Stats(7.5, 7.5, 7.5), stats);
    }
}
