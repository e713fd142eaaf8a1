package dev.javaep.spi;

import java.util.List;
import java.util.Map;

/**
 * A model graph or fused subgraph copied out of ORT: its nodes (in ORT's order) and the values that
 * flow in and out. Valid beyond the call that produced it (it holds no ORT pointers except node ids).
 *
 * @param initializers the graph's initializers (constant ones carry their data when small, see {@link ValueInfo})
 * @param opsets       the opset version imported per domain ({@code ""} is the ONNX domain)
 * @param unreadNodes  nodes javaep could not read at all (named, with the reason); EPs never see them
 *                     in {@link #nodes()}, and they stay with other EPs
 */
public record Graph(String name, List<Node> nodes, List<ValueInfo> inputs, List<ValueInfo> outputs,
                    List<ValueInfo> initializers, Map<String, Long> opsets, List<String> unreadNodes) {

    public Graph {
        initializers = initializers == null ? List.of() : initializers;
        opsets = opsets == null ? Map.of() : opsets;
        unreadNodes = unreadNodes == null ? List.of() : unreadNodes;
    }

    public Graph(String name, List<Node> nodes, List<ValueInfo> inputs, List<ValueInfo> outputs) {
        this(name, nodes, inputs, outputs, List.of(), Map.of(), List.of());
    }
}
