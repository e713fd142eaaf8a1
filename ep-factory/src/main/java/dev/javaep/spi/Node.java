package dev.javaep.spi;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One node of the model graph, copied out of ORT (ORT's node pointers do not outlive the
 * {@code GetCapability}/{@code Compile} call, so nothing here refers back to them except
 * {@link #id()}, which the bridge uses to name the node back to ORT during the same call).
 *
 * @param inputs  the node's inputs in order; an omitted optional input is {@code null}
 * @param outputs the node's outputs in order; an omitted optional output is {@code null}
 */
public record Node(
        long id,
        String name,
        String opType,
        String domain,
        int sinceVersion,
        List<ValueInfo> inputs,
        List<ValueInfo> outputs,
        Map<String, Attribute> attributes) {

    /** Whether this node is in the default ONNX domain. */
    public boolean isOnnxDomain() {
        return domain == null || domain.isEmpty() || domain.equals("ai.onnx");
    }

    public Optional<Attribute> attribute(String attributeName) {
        return Optional.ofNullable(attributes.get(attributeName));
    }

    public long intAttribute(String attributeName, long defaultValue) {
        return attributes.get(attributeName) instanceof Attribute.IntValue(var n, var v) ? v : defaultValue;
    }

    public float floatAttribute(String attributeName, float defaultValue) {
        return attributes.get(attributeName) instanceof Attribute.FloatValue(var n, var v) ? v : defaultValue;
    }
}
