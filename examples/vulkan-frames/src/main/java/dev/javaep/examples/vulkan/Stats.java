package dev.javaep.examples.vulkan;

import java.util.Arrays;

/**
 * Latency in µs of one timed thing, as every table of the benchmarks here gives it: the median (the upper one of an
 * even count), the 99th percentile (nearest rank) and the mean.
 */
record Stats(double median, double p99, double mean) {
    static Stats of(double[] micros) {
        double[] sorted = micros.clone();
        Arrays.sort(sorted);
        int n = sorted.length;
        return new Stats(sorted[n / 2], sorted[(int) Math.min(n - 1, Math.ceil(n * 0.99) - 1)],
                Arrays.stream(sorted).average().orElse(0));
    }
}
