package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.Tensor;
import java.util.List;

/**
 * A kernel of this family: its output shapes come from one rule over {@link InputValues}, which reads the
 * values of shape-deciding inputs when the inputs are there and says which input it needs when only shapes are.
 */
interface TensorKernel extends CpuKernel {
    String op();

    long[][] outputShapes(InputValues inputs);

    @Override
    default long[][] outputShapes(long[][] inputShapes) {
        return outputShapes(InputValues.shapesOnly(op(), inputShapes));
    }

    @Override
    default long[][] outputShapes(List<? extends Tensor> inputs) {
        return outputShapes(InputValues.of(op(), inputs));
    }
}
