package dev.javaep.spi.ops;

import dev.javaep.spi.Node;

/**
 * Where Split takes its part sizes from, as every backend reads them: the {@code split} attribute (Split-1, -2, -11),
 * else the split input (index 1) when the version has one and the node gives it, else {@code num_outputs}
 * ceil-sized parts (Split-18), else equal parts.
 *
 * @param splitInput whether this version takes the sizes as input 1 (all but Split-2)
 */
public record SplitRule(long axis, long[] splitAttribute, boolean splitInput, Long numOutputs) {
    /** The rule of a Split node; a node with both the split input and num_outputs is malformed and throws. */
    public static SplitRule of(Node node, boolean splitInput) {
        Long numOutputs = TensorOps.splitNumOutputs(node);
        return new SplitRule(node.intAttribute("axis", 0), TensorOps.ints(node, "split"), splitInput, numOutputs);
    }

    /** The output shapes and each output's region of the input, for a node of {@code outputs} outputs. */
    public TensorOps.Splitting splitting(ShapeInputs inputs, int outputs) {
        long[] x = inputs.shape(0);
        long[] split = splitAttribute;
        if (split == null && splitInput && inputs.present(1)) {
            double[] values = inputs.doubles(1);
            split = new long[values.length];
            for (int i = 0; i < values.length; i++) {
                split[i] = (long) values[i];
            }
        }
        int a = TensorOps.axis(inputs.op(), axis, x.length);
        return TensorOps.split(x, a, TensorOps.splitSizes(x[a], split, numOutputs, outputs));
    }
}
