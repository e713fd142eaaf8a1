package dev.javaep.spi;

import java.util.List;

/**
 * A node attribute copied out of ORT's graph, one variant per ONNX attribute type. An attribute the
 * node leaves out means the op schema's default; {@link Node} has typed getters that take it.
 */
public sealed interface Attribute {
    String name();

    record IntValue(String name, long value) implements Attribute {}

    record FloatValue(String name, float value) implements Attribute {}

    record StringValue(String name, String value) implements Attribute {}

    record IntList(String name, List<Long> values) implements Attribute {}

    record FloatList(String name, List<Float> values) implements Attribute {}

    record StringList(String name, List<String> values) implements Attribute {}

    /** A TENSOR attribute (Constant's {@code value}, ConstantOfShape's {@code value}). */
    record TensorAttribute(String name, TensorValue value) implements Attribute {}

    /** A GRAPH attribute: a branch of If, the body of Loop or Scan, read like the main graph. */
    record GraphAttribute(String name, Graph graph) implements Attribute {}

    /**
     * An attribute javaep could not read (a kind ORT's C API does not expose, such as TENSORS or
     * SPARSE_TENSOR, or a read that failed): its presence is known, and {@code reason} says why its value
     * is not. EPs decline nodes whose attributes they need and cannot see.
     *
     * @param ortAttributeType the {@code OrtOpAttrType} ORT reported
     */
    record Unreadable(String name, int ortAttributeType, String reason) implements Attribute {}
}
