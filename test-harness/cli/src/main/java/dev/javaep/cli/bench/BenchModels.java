package dev.javaep.cli.bench;

import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.spi.ElementType;
import java.util.List;

/** Models the benchmarks share. */
final class BenchModels {
    private BenchModels() {}

    /** {@code x → Relu → y1 → … → Relu → yN} on a float[length]: ORT and bridge cost with no kernel work to speak of. */
    static byte[] reluChain(int nodes, long length) {
        OnnxModelWriter writer = new OnnxModelWriter("relu_chain").opset(17)
                .input("x", ElementType.FLOAT, Dim.of(length)).output("y" + nodes, ElementType.FLOAT, Dim.of(length));
        String previous = "x";
        for (int i = 1; i <= nodes; i++) {
            writer.node("Relu", List.of(previous), List.of("y" + i));
            previous = "y" + i;
        }
        return writer.toByteArray();
    }
}
