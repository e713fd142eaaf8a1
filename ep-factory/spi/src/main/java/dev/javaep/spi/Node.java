package dev.javaep.spi;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One node of the model graph, copied out of ORT (ORT's node pointers do not outlive the
 * {@code GetCapability}/{@code Compile} call, so nothing here refers back to them except
 * {@link #id()}, which the bridge uses to name the node back to ORT during the same call).
 *
 * @param sinceVersion   the opset version of the op schema ORT resolved the node to
 * @param inputs         the node's inputs in order; an omitted optional input ({@code ""}) is {@code null}
 * @param outputs        the node's outputs in order; an omitted optional output is {@code null}
 * @param implicitInputs outer-scope values a subgraph of this node (If/Loop/Scan) reads
 * @param assignedEp     the EP ORT already assigned the node to, or {@code ""} when unassigned
 */
public record Node(
        long id,
        String name,
        String opType,
        String domain,
        int sinceVersion,
        List<ValueInfo> inputs,
        List<ValueInfo> outputs,
        Map<String, Attribute> attributes,
        List<ValueInfo> implicitInputs,
        String assignedEp) {

    public Node {
        attributes = attributes == null ? Map.of() : attributes;
        implicitInputs = implicitInputs == null ? List.of() : implicitInputs;
        assignedEp = assignedEp == null ? "" : assignedEp;
    }

    /** A node with no subgraph, not yet assigned to an EP. */
    public Node(long id, String name, String opType, String domain, int sinceVersion, List<ValueInfo> inputs,
                List<ValueInfo> outputs, Map<String, Attribute> attributes) {
        this(id, name, opType, domain, sinceVersion, inputs, outputs, attributes, List.of(), "");
    }

    /** Whether this node is in the default ONNX domain. */
    public boolean isOnnxDomain() {
        return domain == null || domain.isEmpty() || domain.equals("ai.onnx");
    }

    public Optional<Attribute> attribute(String attributeName) {
        return Optional.ofNullable(attributes.get(attributeName));
    }

    /** An INT attribute, or {@code defaultValue} (the op schema's default) when the node leaves it out. */
    public long intAttribute(String attributeName, long defaultValue) {
        return attributes.get(attributeName) instanceof Attribute.IntValue(var n, var v) ? v : defaultValue;
    }

    public float floatAttribute(String attributeName, float defaultValue) {
        return attributes.get(attributeName) instanceof Attribute.FloatValue(var n, var v) ? v : defaultValue;
    }

    public String stringAttribute(String attributeName, String defaultValue) {
        return attributes.get(attributeName) instanceof Attribute.StringValue(var n, var v) ? v : defaultValue;
    }

    /** An INTS attribute, or {@code defaultValue} when absent. */
    public List<Long> intsAttribute(String attributeName, List<Long> defaultValue) {
        return attributes.get(attributeName) instanceof Attribute.IntList(var n, var v) ? v : defaultValue;
    }

    /** The input at {@code index}, or {@code null} when it is omitted or beyond the node's inputs. */
    public ValueInfo input(int index) {
        return index < inputs.size() ? inputs.get(index) : null;
    }

    /** The subgraphs this node holds (If's branches, Loop's and Scan's bodies), by attribute name. */
    public Map<String, Graph> subgraphs() {
        Map<String, Graph> result = new java.util.LinkedHashMap<>();
        for (Attribute a : attributes.values()) {
            if (a instanceof Attribute.GraphAttribute(var n, var g)) {
                result.put(n, g);
            }
        }
        return result;
    }

    @Override
    public String toString() {
        return opType + (isOnnxDomain() ? "" : "(" + domain + ")") + "-" + sinceVersion + " '" + name + "'";
    }
}
