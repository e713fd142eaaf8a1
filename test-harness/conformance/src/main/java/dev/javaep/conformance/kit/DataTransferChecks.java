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

    /** What the copies of {@link #canCopy} did, and what of it is wrong. */
    private record Copies(KitContext context, float[] sent, List<String> outcomes, List<String> problems) {
        /**
         * {@code from} → {@code to} through CopyTensors, then (if {@code readBack} is given) {@code to} → {@code readBack}
         * compared with what was sent. A refusal is a problem when the pair is {@code required} ({@code why} says why).
         */
        void pair(String what, OrtTensor from, OrtTensor to, OrtTensor readBack, boolean required, String why) {
            try {
                context.env().copyTensors(List.of(from), List.of(to), null);
                outcomes.add(what + " copied");
            } catch (OrtException e) {
                if (required) {
                    problems.add(what + " refused (" + e.getMessage() + "): " + why);
                } else {
                    outcomes.add(what + " refused (" + e.code() + ")");
                }
                return;
            }
            if (readBack == null) {
                return;
            }
            if (readBack != to) {
                context.env().copyTensors(List.of(to), List.of(readBack), null);
            }
            float[] got = readBack.toHost().floats();
            if (!Arrays.equals(sent, got)) {
                problems.add(what + ": copied " + Arrays.toString(Arrays.copyOf(got, 4)) + "..., sent "
                        + Arrays.toString(Arrays.copyOf(sent, 4)) + "...");
            }
        }

        /** A copy between tensors of different sizes must end in a status. */
        void refused(String what, OrtTensor from, OrtTensor to) {
            try {
                context.env().copyTensors(List.of(from), List.of(to), null);
                problems.add(what + " was copied: a copy between tensors of different sizes must be refused");
            } catch (OrtException e) {
                outcomes.add(what + " refused (" + e.code() + ")");
            }
        }
    }

    private static String canCopy(KitContext context) {
        int n = 1027;
        float[] values = ramp(n);
        Copies copies = new Copies(context, values, new ArrayList<>(), new ArrayList<>());
        java.util.Optional<MemoryInfo> device = deviceMemory(context);
        try (Session session = context.session(KitContext.addModel(), true);
             OrtTensor host = OrtTensor.fromHost(TensorData.ofFloats(new long[] {n}, values));
             OrtTensor hostCopy = OrtTensor.allocate(Allocator.defaultCpu(), ElementType.FLOAT, n);
             OrtTensor hostLonger = OrtTensor.allocate(Allocator.defaultCpu(), ElementType.FLOAT, n + 1)) {
            // ORT has no host → host transfer of its own: whoever claims it must copy exactly
            copies.pair("host→host", host, hostCopy, hostCopy, false, "");
            if (device.isPresent()) {
                try (Allocator allocator = session.allocator(device.get());
                     OrtTensor onDevice = OrtTensor.allocate(allocator, ElementType.FLOAT, n);
                     OrtTensor onDevice2 = OrtTensor.allocate(allocator, ElementType.FLOAT, n);
                     OrtTensor deviceLonger = OrtTensor.allocate(allocator, ElementType.FLOAT, n + 1);
                     OrtTensor back = OrtTensor.allocate(Allocator.defaultCpu(), ElementType.FLOAT, n)) {
                    copies.pair("host→device", host, onDevice, null, true, "ORT needs it to feed the EP's inputs");
                    copies.pair("device→host", onDevice, back, back, true, "ORT needs it to read the EP's outputs");
                    copies.pair("device→device", onDevice, onDevice2, back, false, "");
                    copies.refused("host [" + n + "] → device [" + (n + 1) + "]", host, deviceLonger);
                }
            }
            copies.refused("host [" + n + "] → host [" + (n + 1) + "]", host, hostLonger);
        }
        if (!copies.problems().isEmpty()) {
            throw Check.fail(String.join("; ", copies.problems()) + " (" + String.join(", ", copies.outcomes()) + ")");
        }
        return String.join(", ", copies.outcomes()) + (device.isEmpty() ? "; no device memory: host pairs only" : "");
    }
}
