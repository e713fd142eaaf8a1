package dev.javaep.spi;

import java.util.List;

/**
 * What a per-op kernel knows about its node when it is created ({@code OrtKernelInfo}): the node's op,
 * opset, name, input and output types, and its attributes by name. Valid only during
 * {@link OpKernel.Factory#create}: copy what the kernel needs.
 */
public interface KernelInfo {
    String nodeName();

    String opType();

    String domain();

    int sinceVersion();

    int inputCount();

    int outputCount();

    /** Element type of input {@code index} ({@link ElementType#UNDEFINED} when not a tensor). */
    ElementType inputType(int index);

    ElementType outputType(int index);

    /** An INT attribute, or {@code defaultValue} when the node leaves it out. */
    long intAttribute(String name, long defaultValue);

    float floatAttribute(String name, float defaultValue);

    String stringAttribute(String name, String defaultValue);

    /** An INTS attribute, or {@code defaultValue} when absent. */
    List<Long> intsAttribute(String name, List<Long> defaultValue);

    List<Float> floatsAttribute(String name, List<Float> defaultValue);
}
