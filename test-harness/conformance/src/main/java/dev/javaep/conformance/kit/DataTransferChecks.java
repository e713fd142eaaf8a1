package dev.javaep.conformance.kit;

import dev.javaep.host.Allocator;
import dev.javaep.host.DeviceMemoryType;
import dev.javaep.host.MemoryInfo;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.Session;
import dev.javaep.host.TensorData;
import dev.javaep.ort.OrtException;
import dev.javaep.spi.ElementType;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The EP's data transfer through {@code CopyTensors}, where it offers device memory. */
final class DataTransferChecks {
    private DataTransferChecks() {}

    static CheckGroup group() {
        return new CheckGroup("data-transfer", "CopyTensors through the EP's data transfer", List.of(
                new Check("data-transfer.round-trip",
                        "host → device → host through CopyTensors gives back the exact bytes",
                        DataTransferChecks::roundTrip),
                new Check("data-transfer.can-copy",
                        "what CopyTensors copies (through the EP's CanCopy) is copied exactly: host↔device both ways for a"
                                + " device-memory EP, device↔device and host→host where claimed; refused pairs and"
                                + " mismatched shapes end in a status, never a crash",
                        DataTransferChecks::canCopy)));
    }

    /** The EP's device memory (DEFAULT, not host-accessible), if it has any. */
    static java.util.Optional<MemoryInfo> deviceMemory(KitContext context) {
        return context.device().memoryInfo(DeviceMemoryType.DEFAULT).filter(info -> !info.isHostAccessible());
    }

    private static float[] ramp(int n) {
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = i * 0.25f - 17;
        }
        return values;
    }

    private static String roundTrip(KitContext context) {
        MemoryInfo device = deviceMemory(context)
                .orElseThrow(() -> Check.skip(context.epName() + " offers no device memory: there is nothing to transfer"));
        int n = 4099;
        float[] values = ramp(n);
        try (Session session = context.session(KitContext.addModel(), true);
             Allocator allocator = session.allocator(device);
             OrtTensor onDevice = OrtTensor.allocate(allocator, ElementType.FLOAT, n);
             OrtTensor source = OrtTensor.fromHost(TensorData.ofFloats(new long[] {n}, values));
             OrtTensor back = OrtTensor.allocate(Allocator.defaultCpu(), ElementType.FLOAT, n)) {
            context.env().copyTensors(List.of(source), List.of(onDevice), null);
            context.env().copyTensors(List.of(onDevice), List.of(back), null);
            float[] got = back.toHost().floats();
            if (!Arrays.equals(values, got)) {
                int i = 0;
                while (i < n && Float.compare(values[i], got[i]) == 0) {
                    i++;
                }
                throw Check.fail("element " + i + " came back as " + got[i] + ", sent " + values[i]);
            }
        }
        return n + " floats";
    }

    /** One CopyTensors: answers null when it copied exactly, what went wrong otherwise; a refusal is an OrtException. */
    private static String copy(KitContext context, OrtTensor from, OrtTensor to, OrtTensor readBack, float[] sent) {
        context.env().copyTensors(List.of(from), List.of(to), null);
        if (readBack != to) {
            context.env().copyTensors(List.of(to), List.of(readBack), null);
        }
        float[] got = readBack.toHost().floats();
        return Arrays.equals(sent, got) ? null : "copied " + Arrays.toString(Arrays.copyOf(got, 4)) + "..., sent "
                + Arrays.toString(Arrays.copyOf(sent, 4)) + "...";
    }

    private static String canCopy(KitContext context) {
        int n = 1027;
        float[] values = ramp(n);
        List<String> problems = new ArrayList<>();
        List<String> outcomes = new ArrayList<>();
        java.util.Optional<MemoryInfo> device = deviceMemory(context);
        try (Session session = context.session(KitContext.addModel(), true);
             OrtTensor host = OrtTensor.fromHost(TensorData.ofFloats(new long[] {n}, values));
             OrtTensor hostCopy = OrtTensor.allocate(Allocator.defaultCpu(), ElementType.FLOAT, n);
             OrtTensor hostLonger = OrtTensor.allocate(Allocator.defaultCpu(), ElementType.FLOAT, n + 1)) {
            // host → host: ORT has no transfer of its own; whoever claims it must copy exactly
            try {
                String wrong = copy(context, host, hostCopy, hostCopy, values);
                outcomes.add("host→host copied (a data transfer claims it)");
                if (wrong != null) {
                    problems.add("host→host: " + wrong);
                }
            } catch (OrtException e) {
                outcomes.add("host→host refused (" + e.code() + ")");
            }
            if (device.isPresent()) {
                try (Allocator allocator = session.allocator(device.get());
                     OrtTensor onDevice = OrtTensor.allocate(allocator, ElementType.FLOAT, n);
                     OrtTensor onDevice2 = OrtTensor.allocate(allocator, ElementType.FLOAT, n);
                     OrtTensor deviceLonger = OrtTensor.allocate(allocator, ElementType.FLOAT, n + 1);
                     OrtTensor back = OrtTensor.allocate(Allocator.defaultCpu(), ElementType.FLOAT, n)) {
                    try {
                        context.env().copyTensors(List.of(host), List.of(onDevice), null);
                        outcomes.add("host→device copied");
                    } catch (OrtException e) {
                        problems.add("host→device refused (" + e.getMessage() + "): ORT needs it to feed the EP's inputs");
                    }
                    try {
                        String wrong = copy(context, onDevice, back, back, values);
                        outcomes.add("device→host copied");
                        if (wrong != null) {
                            problems.add("host→device→host: " + wrong);
                        }
                    } catch (OrtException e) {
                        problems.add("device→host refused (" + e.getMessage() + "): ORT needs it to read the EP's outputs");
                    }
                    try {
                        String wrong = copy(context, onDevice, onDevice2, back, values);
                        outcomes.add("device→device copied");
                        if (wrong != null) {
                            problems.add("device→device: " + wrong);
                        }
                    } catch (OrtException e) {
                        outcomes.add("device→device refused (" + e.code() + ")");
                    }
                    refused(context, host, deviceLonger, "host [" + n + "] → device [" + (n + 1) + "]", outcomes, problems);
                }
            }
            refused(context, host, hostLonger, "host [" + n + "] → host [" + (n + 1) + "]", outcomes, problems);
        }
        if (!problems.isEmpty()) {
            throw Check.fail(String.join("; ", problems) + " (" + String.join(", ", outcomes) + ")");
        }
        return String.join(", ", outcomes) + (device.isEmpty() ? "; no device memory: host pairs only" : "");
    }

    /** A copy between tensors of different sizes must end in a status. */
    private static void refused(KitContext context, OrtTensor from, OrtTensor to, String what, List<String> outcomes,
                                List<String> problems) {
        try {
            context.env().copyTensors(List.of(from), List.of(to), null);
            problems.add(what + " was copied: a copy between tensors of different sizes must be refused");
        } catch (OrtException e) {
            outcomes.add(what + " refused (" + e.code() + ")");
        }
    }
}
