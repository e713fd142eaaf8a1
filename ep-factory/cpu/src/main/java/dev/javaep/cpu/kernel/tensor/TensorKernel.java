package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.spi.Tensor;
import java.util.List;

/**
 * A kernel of this family: its output shapes come from one rule over {@link InputValues}, which reads the
 * values of shape-deciding inputs when the inputs are there and says which input it needs when only shapes are.
 * It plans from that rule ({@link #plan(InputValues)}): the plan names the inputs whose values the rule read, so the
 * compiled program plans again only when a shape or one of those values changes, not every Run.
 */
interface TensorKernel extends PlannedKernel {
    String op();

    long[][] outputShapes(InputValues inputs);

    /**
     * The plan of the rule over {@code inputs}. This one keeps the output shapes and computes through the kernel's
     * {@code compute} (which applies the rule again); kernels whose compute needs the rule's result override it.
     */
    default Plan plan(InputValues inputs) {
        long[][] shapes = outputShapes(inputs);
        return new RulePlan(shapes, inputs.valuesRead(), this);
    }

    @Override
    default Plan plan(long[][] inputShapes) {
        return plan(InputValues.shapesOnly(op(), inputShapes));
    }

    @Override
    default Plan plan(List<? extends Tensor> inputs) {
        return plan(InputValues.of(op(), inputs));
    }

    @Override
    default long[][] outputShapes(long[][] inputShapes) {
        return outputShapes(InputValues.shapesOnly(op(), inputShapes));
    }

    @Override
    default long[][] outputShapes(List<? extends Tensor> inputs) {
        return outputShapes(InputValues.of(op(), inputs));
    }

    /** {@link #plan(InputValues)}'s default: the shapes, and the kernel's own compute. */
    record RulePlan(long[][] outputShapes, long valueInputs, TensorKernel kernel) implements Plan {
        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            kernel.compute(inputs, outputs);
        }
    }
}
