package dev.javaep.harness.host;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.javaep.harness.JavaepRegistration;
import dev.javaep.host.Allocator;
import dev.javaep.host.OrtHost;
import dev.javaep.host.OrtTensor;
import dev.javaep.host.Session;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import java.util.Map;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * {@code Session.run(inputs, outputs, options)}: plain {@code Run} over OrtValues the caller made, outputs
 * pre-allocated (bench-interop's plain-Run path): ORT writes into the caller's output values, with the results of
 * the copying {@code run}.
 */
class PlainRunIT {
    private static final int BATCH = 3;
    @RegisterExtension
    static final JavaepRegistration JAVAEP = new JavaepRegistration("javaep-plain-run", OrtHost.LogLevel.WARNING);

    @ParameterizedTest
    @ValueSource(strings = {"CPUExecutionProvider", "JavaCpuExecutionProvider"})
    void runWritesIntoThePreAllocatedOutputs(String ep) {
        TensorData input = BindingModel.input(BATCH, 7);
        try (Session session = IoBindingIT.session(JAVAEP.env(), ep);
             OrtTensor x = OrtTensor.fromHost(input);
             OrtTensor hidden = OrtTensor.allocate(Allocator.defaultCpu(), ElementType.FLOAT, BATCH, BindingModel.HIDDEN);
             OrtTensor y = OrtTensor.allocate(Allocator.defaultCpu(), ElementType.FLOAT, BATCH, BindingModel.OUT)) {
            Map<String, TensorData> expected = session.run(Map.of("x", input));
            long hiddenAddress = hidden.dataAddress();
            long yAddress = y.dataAddress();
            for (int run = 0; run < 2; run++) { // a second Run over the same values: nothing is consumed
                session.run(Map.of("x", x), Map.of("hidden", hidden, "y", y), null);
                assertArrayEquals(expected.get("hidden").floats(), hidden.toHost().floats(), 1e-6f, "hidden, run " + run);
                assertArrayEquals(expected.get("y").floats(), y.toHost().floats(), 1e-6f, "y, run " + run);
            }
            assertEquals(hiddenAddress, hidden.dataAddress(), "ORT wrote into our hidden tensor, not a new one");
            assertEquals(yAddress, y.dataAddress(), "ORT wrote into our y tensor, not a new one");
        }
    }
}
