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
 * @param attributes by name, in file order
 */
public record OnnxNode(String name, String opType, String domain, List<String> inputs, List<String> outputs,
                       Map<String, Attribute> attributes) {

    public OnnxNode {
        name = name == null ? "" : name;
        Objects.requireNonNull(opType, "opType");
        domain = domain == null ? "" : domain;
        inputs = List.copyOf(inputs);
        outputs = List.copyOf(outputs);
        attributes = Collections.unmodifiableMap(new LinkedHashMap<>(attributes));
    }
}
