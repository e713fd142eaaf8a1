package dev.javaep.harness;

import dev.javaep.harness.onnx.Dim;
import dev.javaep.harness.onnx.OnnxModelWriter;
import dev.javaep.host.TensorData;
import dev.javaep.spi.ElementType;
import java.util.List;
import java.util.Map;

/**
 * The model of the tests that check what javaep reports about one compiled group's Computes (JFR events, ORT's
 * profile): out = relu(x + y) · y over x {2, 3} and y {3}, three nodes a host EP runs as one group.
 */
public final class AddReluMulGroup {
    /** The group's nodes in the order they run. */
    public static final List<String> OP_TYPES = List.of("Add", "Relu", "Mul");
    public static final Map<String, TensorData> INPUTS = Map.of(
            "x", TensorData.ofFloats(new long[] {2, 3}, -3f, -1f, 0f, 1f, 2f, 3f),
            "y", TensorData.ofFloats(new long[] {3}, 1f, 2f, -1f));
    /** Output {@code out} for {@link #INPUTS}. */
    public static final float[] OUT = {0f, 2f, 0f, 2f, 8f, -2f};

    private AddReluMulGroup() {}

    public static byte[] model(String graphName) {
        return new OnnxModelWriter(graphName)
                .input("x", ElementType.FLOAT, Dim.of(2), Dim.of(3))
                .input("y", ElementType.FLOAT, Dim.of(3))
                .output("out", ElementType.FLOAT, Dim.of(2), Dim.of(3))
                .node("Add", List.of("x", "y"), List.of("sum"))
                .node("Relu", List.of("sum"), List.of("relu"))
                .node("Mul", List.of("relu", "y"), List.of("out"))
                .toByteArray();
    }

    /** The op types of a group's node list as javaep reports it: {@code opType:nodeName}, comma-separated. */
    public static List<String> opTypes(String nodes) {
        return List.of(nodes.split(",")).stream().map(n -> n.substring(0, n.indexOf(':'))).toList();
    }
}
