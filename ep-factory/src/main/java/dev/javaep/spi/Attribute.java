package dev.javaep.spi;

import java.util.List;

/** A node attribute, copied out of ORT's graph (only the kinds our kernels read are decoded). */
public sealed interface Attribute {
    String name();

    record IntValue(String name, long value) implements Attribute {}

    record FloatValue(String name, float value) implements Attribute {}

    record StringValue(String name, String value) implements Attribute {}

    record IntList(String name, List<Long> values) implements Attribute {}

    record FloatList(String name, List<Float> values) implements Attribute {}

    /** An attribute of a kind javaep does not decode (tensor, graph, ...); its presence is still known. */
    record Other(String name, int ortAttributeType) implements Attribute {}
}
