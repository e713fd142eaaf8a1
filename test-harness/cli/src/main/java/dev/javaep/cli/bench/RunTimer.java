package dev.javaep.cli.bench;

import dev.javaep.host.IoBinding;
import dev.javaep.host.Session;
import dev.javaep.host.TensorData;
import java.util.Arrays;
import java.util.Map;

/** Median wall time of {@code Session.run} after a warm-up long enough for the JIT to compile kernels and bridge. */
public final class RunTimer {
    private RunTimer() {}

    public static double medianMicros(Session session, Map<String, TensorData> input, int warmUp, int samples) {
        for (int i = 0; i < warmUp; i++) {
            session.run(input);
        }
        double[] times = new double[samples];
        for (int i = 0; i < samples; i++) {
            long t0 = System.nanoTime();
            session.run(input);
            times[i] = (System.nanoTime() - t0) / 1e3;
        }
        Arrays.sort(times);
        return times[samples / 2];
    }

    /** Median ms of {@code Session.run(binding)} (a Run ends synchronised) after {@code warmUp} untimed Runs. */
    public static double medianMillis(Session session, IoBinding binding, int warmUp, int samples) {
        for (int i = 0; i < warmUp; i++) {
            session.run(binding, null);
        }
        double[] times = new double[samples];
        for (int i = 0; i < samples; i++) {
            long t0 = System.nanoTime();
            session.run(binding, null);
            times[i] = (System.nanoTime() - t0) / 1e6;
        }
        Arrays.sort(times);
        return times[samples / 2];
    }
}
