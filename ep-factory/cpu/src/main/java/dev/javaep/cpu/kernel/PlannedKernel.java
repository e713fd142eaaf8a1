package dev.javaep.cpu.kernel;

import dev.javaep.spi.Tensor;
import java.util.List;

/**
 * A kernel that resolves what depends on its input shapes (output shapes, a broadcast walk, a matrix or convolution
 * geometry) once per input-shape signature into a {@link Plan}, and computes through it. The compiled program keeps
 * one plan per step and thread and asks for a new one only when a step's input shapes (or the values its plan read)
 * change, so a steady-state Run
 * computes no shape and allocates nothing (issue 13); the plain {@link CpuKernel#compute} plans afresh each time.
 */
public interface PlannedKernel extends CpuKernel {

    /**
     * The work of one input-shape signature. Used by one thread at a time (the program keeps one per step and
     * thread), so it may keep scratch for its Runs; the inputs it computes on have the shapes it was made for.
     */
    interface Plan {
        /** The output shapes; callers must not change them. */
        long[][] outputShapes();

        /** Computes the outputs, which have {@link #outputShapes()}. */
        void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs);

        /**
         * The inputs whose values, not only shapes, this plan was made from (bit i: input i; a Reshape's shape, a
         * Slice's starts): the program keeps a copy of their bytes and plans again when they change.
         */
        default long valueInputs() {
            return 0;
        }
    }

    /** A plan that keeps its output shapes (and the inputs whose values it read), the part every plan has; subclasses compute. */
    abstract class ShapedPlan implements Plan {
        private final long[][] outputShapes;
        private final long valueInputs;

        protected ShapedPlan(long[][] outputShapes) {
            this(outputShapes, 0);
        }

        protected ShapedPlan(long[][] outputShapes, long valueInputs) {
            this.outputShapes = outputShapes;
            this.valueInputs = valueInputs;
        }

        @Override
        public final long[][] outputShapes() {
            return outputShapes;
        }

        @Override
        public final long valueInputs() {
            return valueInputs;
        }
    }

    /** The plan for inputs of these shapes (an omitted optional input's is null); throws for incompatible shapes. */
    Plan plan(long[][] inputShapes);

    /**
     * The plan for these inputs (omitted optional ones null): kernels whose shapes depend on input values read them
     * here and name them in {@link Plan#valueInputs()}; the rest plan from the shapes.
     */
    default Plan plan(List<? extends Tensor> inputs) {
        return plan(Shapes.shapesOf(inputs));
    }

    @Override
    default long[][] outputShapes(long[][] inputShapes) {
        return plan(inputShapes).outputShapes();
    }

    /** The output shapes of {@link #plan(List)}, so that a kernel reading input values reads them in one place. */
    @Override
    default long[][] outputShapes(List<? extends Tensor> inputs) {
        return plan(inputs).outputShapes();
    }

    /**
     * Plans for these inputs and computes through the plan: the one implementation path, the same the compiled
     * program takes (it only keeps the plan between Runs), so a kernel has no second, unplanned compute.
     */
    @Override
    default void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        plan(inputs).compute(inputs, outputs);
    }
}
