package dev.javaep.spi.ops;

import dev.javaep.spi.Node;
import java.util.List;

/**
 * Where Split takes its part sizes from, as every backend reads them: the {@code split} attribute (Split-1, -2, -11),
 * else the split input (index 1) when the version has one and the node gives it, else {@code num_outputs}
 * ceil-sized parts (Split-18), else equal parts.
 *
 * @param splitInput whether this version takes the sizes as input 1 (all but Split-2)
 */
public record SplitRule(long axis, long[] splitAttribute, boolean splitInput, Long numOutputs) {
    /** Split's versions: all but Split-2 take the sizes as input 1. */
    public static final List<OpSchema> SCHEMAS = List.of(TensorOps.SPLIT_1, TensorOps.SPLIT_2, TensorOps.SPLIT_13,
            TensorOps.SPLIT_18);

    /** The rule of a node of {@code schema}; a node with both the split input and num_outputs is malformed and throws. */
    public static SplitRule of(OpSchema schema, Node node) {
        Long numOutputs = TensorOps.splitNumOutputs(node);
        return new SplitRule(node.intAttribute("axis", 0), TensorOps.ints(node, "split"), schema != TensorOps.SPLIT_2,
                numOutputs);
    }

    /** The output shapes and each output's region of the input, for a node of {@code outputs} outputs. */
    public TensorOps.Splitting splitting(ShapeInputs inputs, int outputs) {
        long[] x = inputs.shape(0);
        long[] split = splitAttribute;
        if (split == null && splitInput && inputs.present(1)) {
            split = inputs.longs(1); // Split's split input is int64
        }
        int a = TensorOps.axis(inputs.op(), axis, x.length);
        return TensorOps.split(x, a, TensorOps.splitSizes(x[a], split, numOutputs, outputs));
    }
}
