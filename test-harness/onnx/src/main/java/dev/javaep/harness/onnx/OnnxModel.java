package dev.javaep.harness.onnx;

import java.util.Map;
import java.util.Objects;

/**
 * An ONNX model (ModelProto), reduced to what javaep's tests read and write.
 *
 * @param opsetImports operator set version per domain; the default ONNX domain is the empty string
 */
public record OnnxModel(long irVersion, String producerName, Map<String, Long> opsetImports, OnnxGraph graph) {

    public OnnxModel {
        producerName = producerName == null ? "" : producerName;
        opsetImports = Map.copyOf(opsetImports);
        Objects.requireNonNull(graph, "graph");
    }

    /** The opset version imported for the default ONNX domain (also spelled "ai.onnx"), or 0 if none. */
    public long onnxOpset() {
        return opsetImports.getOrDefault("", opsetImports.getOrDefault("ai.onnx", 0L));
    }
}
