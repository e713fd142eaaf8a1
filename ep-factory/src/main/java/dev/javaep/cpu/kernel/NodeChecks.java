package dev.javaep.cpu.kernel;

import dev.javaep.spi.Attribute;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import java.util.List;
import java.util.Map;

/**
 * Questions {@link CpuKernels} asks about a node before choosing a kernel. Each answers false (never
 * throws) for anything unexpected: a null list, an omitted input, a value that is not a tensor.
 */
final class NodeChecks {
    private NodeChecks() {}

    /**
     * The element type of input {@code index}, or {@code null} when it is absent, omitted or not a
     * tensor.
     */
    static ElementType inputType(Node node, int index) {
        return tensorType(node.inputs(), index);
    }

    static ElementType outputType(Node node, int index) {
        return tensorType(node.outputs(), index);
    }

    /** Number of inputs, not counting trailing omitted ones. */
    static int presentInputCount(Node node) {
        List<ValueInfo> inputs = node.inputs();
        if (inputs == null) {
            return 0;
        }
        int n = inputs.size();
        while (n > 0 && inputs.get(n - 1) == null) {
            n--;
        }
        return n;
    }

    static int outputCount(Node node) {
        return node.outputs() == null ? 0 : node.outputs().size();
    }

    /** The rank of input {@code index} when ORT knows it, else -1. */
    static int inputRank(Node node, int index) {
        ValueInfo v = node.inputs().get(index);
        return v.shape() == null ? -1 : v.shape().length;
    }

    /**
     * Whether every attribute the node carries is one this kernel reads, of the kind it expects. An
     * attribute we do not know may change the op's meaning, so its presence means "not ours".
     */
    static boolean attributesAre(Node node, Map<String, Class<? extends Attribute>> expected) {
        Map<String, Attribute> attributes = node.attributes();
        if (attributes == null) {
            return true;
        }
        for (Map.Entry<String, Attribute> e : attributes.entrySet()) {
            Class<? extends Attribute> kind = expected.get(e.getKey());
            if (kind == null || !kind.isInstance(e.getValue())) {
                return false;
            }
        }
        return true;
    }

    private static ElementType tensorType(List<ValueInfo> values, int index) {
        if (values == null || index >= values.size()) {
            return null;
        }
        ValueInfo v = values.get(index);
        return v == null || !v.isTensor() ? null : v.elementType();
    }
}
