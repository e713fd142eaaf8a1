package dev.javaep.harness.onnx;

import java.util.List;

/** An ONNX graph (GraphProto): nodes in order, its inputs and outputs, and its constant tensors. */
public record OnnxGraph(String name, List<OnnxNode> nodes, List<OnnxValueInfo> inputs, List<OnnxValueInfo> outputs,
                        List<OnnxTensorData> initializers) {

    public OnnxGraph {
        name = name == null ? "" : name;
        nodes = List.copyOf(nodes);
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        initializers = List.copyOf(initializers);
    }
}
