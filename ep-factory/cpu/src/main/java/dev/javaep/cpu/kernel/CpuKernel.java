package dev.javaep.cpu.kernel;

import dev.javaep.spi.Tensor;
import java.util.List;

/**
 * The Java implementation of one ONNX node. Kernels hold only their node's configuration (never
 * per-run state), so one instance may compute on several threads at once.
 */
public interface CpuKernel {

    /**
     * Output shapes (ONNX semantics) for these input shapes; an omitted optional input's shape is
     * {@code null}. Throws {@link IllegalArgumentException} with a clear message for incompatible
     * shapes.
     */
    long[][] outputShapes(long[][] inputShapes);

    /**
     * Output shapes for these inputs (omitted optional inputs are {@code null}). Kernels whose output shape
     * depends on an input's values (Reshape's shape, Slice's starts, Resize's sizes: small int64 or float
     * tensors) override this and read them; the rest take the shapes only.
     */
    default long[][] outputShapes(List<? extends Tensor> inputs) {
        return outputShapes(Shapes.shapesOf(inputs));
    }

    /**
     * Computes the outputs; outputs were allocated with the shapes from {@link #outputShapes}.
     * Omitted optional inputs are {@code null}.
     */
    void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs);
}
