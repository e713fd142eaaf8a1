package dev.javaep.harness.networks;

import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.javaep.conformance.ModelComparison;
import dev.javaep.harness.JavaepRegistration;
import java.nio.file.Path;
import java.util.stream.Stream;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Real architectures exported by PyTorch's exporters (the TorchScript one and the newer dynamo one; see
 * {@link ExportedNetworks}): each runs on JavaCpu with ORT's CPU fallback disabled, so every node is javaep's,
 * and matches ORT's own CPU EP on the same seeded inputs. A model with dynamic height and width also runs at a
 * size it was not exported at.
 */
class ExportedNetworksIT {
    private static final String EP = "JavaCpuExecutionProvider";

    @RegisterExtension
    static final JavaepRegistration JAVAEP = new JavaepRegistration("javaep-networks", EP);

    @TestFactory
    Stream<DynamicTest> exportedNetworksMatchOrtCpuOnJavaCpu() {
        Path dir = ExportedNetworks.directory();
        return ExportedNetworks.cases().stream().map(c -> DynamicTest.dynamicTest(c.toString(), () -> {
            Path model = dir.resolve(c.file());
            ModelComparison.Result result = ModelComparison.run(JAVAEP.env(), JAVAEP.device(EP), model,
                    ModelComparison.byPosition(model, c.shapes()));
            System.out.printf("%s (%s): max |JavaCpu - ORT CPU| = %.3g%n", c, c.what(), result.maxAbsDifference());
            assertTrue(result.matches(), c + ": " + result.mismatches());
        }));
    }
}
