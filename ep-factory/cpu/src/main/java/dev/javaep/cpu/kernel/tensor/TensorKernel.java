package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.spi.Tensor;
import java.util.List;

/**
 * A kernel of this family: its output shapes come from one rule over {@link InputValues}, which reads the
 * values of shape-deciding inputs when the inputs are there and says which input it needs when only shapes are.
 * It plans from that rule ({@link #plan(InputValues)}): the plan names the inputs whose values the rule read, so the
 * compiled program plans again only when a shape or one of those values changes, not every Run. The kernels whose
 * work is not planned yet are {@link Unplanned}.
 */
interface TensorKernel extends PlannedKernel {
    String op();

    long[][] outputShapes(InputValues inputs);

    /**
     * The plan of the rule over {@code inputs}, naming the inputs whose values the rule read; it computes what the
     * kernel does (the kernel's {@code compute} plans and runs it, see {@link PlannedKernel#compute}).
     */
    Plan plan(InputValues inputs);

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

    /**
     * A kernel of this family without a plan of its own yet: its plan keeps the output shapes only and computes
     * through the kernel's {@code compute}, which applies the rule again every Run (and allocates what it needs).
     * {@code compute} is abstract again here because the inherited one runs the plan, which would call back into it.
     */
    interface Unplanned extends TensorKernel {
        @Override
        default Plan plan(InputValues inputs) {
            return new RulePlan(outputShapes(inputs), inputs.valuesRead(), this);
        }

        @Override
        void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs);
    }

    /** {@link Unplanned}'s plan: the shapes, and the kernel's own compute. */
    record RulePlan(long[][] outputShapes, long valueInputs, Unplanned kernel) implements Plan {
        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            kernel.compute(inputs, outputs);
        }
    }
}
