package dev.javaep.harness.onnx;

import dev.javaep.spi.Attribute;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * One node of an ONNX graph (NodeProto). An omitted optional input is the empty string, as in ONNX.
 *
 * @param domain     the operator set's domain; empty for the default ONNX domain
 * @param attributes by name, in file order; every kind but GRAPH
 * @param subgraphs  the GRAPH attributes (If's {@code then_branch}/{@code else_branch}, Loop's {@code body}),
 *                   by name, in file order: kept apart from {@code attributes} because
 *                   {@link Attribute.GraphAttribute} holds ORT's view of a graph, not an {@link OnnxGraph}
 */
public record OnnxNode(String name, String opType, String domain, List<String> inputs, List<String> outputs,
                       Map<String, Attribute> attributes, Map<String, OnnxGraph> subgraphs) {

    public OnnxNode {
        name = name == null ? "" : name;
        Objects.requireNonNull(opType, "opType");
        domain = domain == null ? "" : domain;
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
        subgraphs = Collections.unmodifiableMap(new LinkedHashMap<>(subgraphs == null ? Map.of() : subgraphs));
        for (String graphName : subgraphs.keySet()) {
            if (attributes.containsKey(graphName)) {
                throw new IllegalArgumentException(opType + " node '" + name + "' has attribute '" + graphName
                        + "' both as a value and as a subgraph");
            }
        }
    }

    /** A node without subgraphs. */
    public OnnxNode(String name, String opType, String domain, List<String> inputs, List<String> outputs,
                    Map<String, Attribute> attributes) {
        this(name, opType, domain, inputs, outputs, attributes, Map.of());
    }
}
