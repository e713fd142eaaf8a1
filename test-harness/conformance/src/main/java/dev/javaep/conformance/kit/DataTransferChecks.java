package dev.javaep.conformance.kit;

import dev.javaep.host.Allocator;
import dev.javaep.host.DeviceMemoryType;
import dev.javaep.host.MemoryInfo;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.Session;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import java.util.Arrays;
import java.util.List;

/** The EP's data transfer through {@code CopyTensors}, where it offers device memory. */
final class DataTransferChecks {
    private DataTransferChecks() {}

    static CheckGroup group() {
        return new CheckGroup("data-transfer", "CopyTensors through the EP's data transfer", List.of(
                new Check("data-transfer.round-trip",
                        "host → device → host through CopyTensors gives back the exact bytes",
                        DataTransferChecks::roundTrip)));
    }

    private static String roundTrip(KitContext context) {
        MemoryInfo device = context.device().memoryInfo(DeviceMemoryType.DEFAULT)
                .filter(info -> !info.isHostAccessible())
                .orElseThrow(() -> Check.skip(context.epName() + " offers no device memory: there is nothing to transfer"));
        int n = 4099;
        float[] values = new float[n];
        for (int i = 0; i < n; i++) {
            values[i] = i * 0.25f - 17;
        }
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
}
