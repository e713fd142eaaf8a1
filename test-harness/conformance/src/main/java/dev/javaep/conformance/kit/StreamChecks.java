package dev.javaep.conformance.kit;

import dev.javaep.host.Allocator;
import dev.javaep.host.MemoryInfo;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.Session;
import dev.javaep.host.SyncStream;
import dev.javaep.host.TensorData;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.ElementType;
import java.util.Arrays;
import java.util.List;

/**
 * Stream awareness: sync streams an app creates for the EP's device ({@code CreateSyncStreamForEpDevice}), copies
 * queued on them, their release. ORT creates streams only for EPs with device memory; the notifications ORT and the
 * EP exchange between streams inside a Run are not visible to a host, so a Run across streams is checked by its
 * outputs (the correctness group).
 */
final class StreamChecks {
    private static final int CYCLES = 10;

    private StreamChecks() {}

    static CheckGroup group() {
        return new CheckGroup("streams", "sync streams the EP creates for its device", List.of(
                new Check("streams.lifecycle",
                        "sync streams created for the EP device carry copies host → device → host exactly and release"
                                + " cleanly, " + CYCLES + " times, without growing fds or threads",
                        StreamChecks::lifecycle)));
    }

    private static String lifecycle(KitContext context) {
        MemoryInfo device = DataTransferChecks.deviceMemory(context).orElseThrow(() -> Check.skip(context.epName()
                + " uses host memory: ORT creates sync streams only for EP devices with DEFAULT memory on a non-CPU"
                + " device (CreateSyncStreamForEpDevice answers INVALID_ARGUMENT), so there is no stream to check"));
        int n = 2053;
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = 3 - i * 0.125f;
        }
        ProcessSample before = null;
        long handle = 0;
        try (Session session = context.session(KitContext.addModel(), true);
             Allocator allocator = session.allocator(device);
             OrtTensor host = OrtTensor.fromHost(TensorData.ofFloats(new long[] {n}, values))) {
            for (int cycle = 0; cycle < CYCLES; cycle++) {
                if (cycle == 1) {
                    before = ProcessSample.now(); // after the first stream: the EP's one-time setup is done
                }
                try (OrtTensor onDevice = OrtTensor.allocate(allocator, ElementType.FLOAT, n);
                     OrtTensor back = OrtTensor.allocate(Allocator.defaultCpu(), ElementType.FLOAT, n)) {
                    try (SyncStream stream = context.env().createSyncStream(context.device())) {
                        handle = stream.handle();
                        context.env().copyTensors(List.of(host), List.of(onDevice), stream);
                    } catch (OrtException e) {
                        throw Check.fail("cycle " + cycle + ": " + e.getMessage());
                    }
                    // after the stream's release its queued copy must be done: a synchronous copy reads it back
                    context.env().copyTensors(List.of(onDevice), List.of(back), null);
                    float[] got = back.toHost().floats();
                    if (!Arrays.equals(values, got)) {
                        throw Check.fail("cycle " + cycle + ": a copy queued on a stream read back as "
                                + Arrays.toString(Arrays.copyOf(got, 4)) + "..., sent " + Arrays.toString(Arrays.copyOf(values, 4))
                                + "... (did ReleaseSyncStream return before its queued work finished?)");
                    }
                }
            }
        }
        ProcessSample after = ProcessSample.now();
        if (after.openFds() > before.openFds() + 1 || after.threads() > before.threads() + 1) {
            throw Check.fail(String.format("over %d stream cycles fds went %d → %d and threads %d → %d", CYCLES - 1,
                    before.openFds(), after.openFds(), before.threads(), after.threads()));
        }
        return CYCLES + " streams (native handle 0x" + Long.toHexString(handle) + ") created, used for copies and released;"
                + " fds " + before.openFds() + " → " + after.openFds() + ", threads " + before.threads() + " → " + after.threads();
    }
}
