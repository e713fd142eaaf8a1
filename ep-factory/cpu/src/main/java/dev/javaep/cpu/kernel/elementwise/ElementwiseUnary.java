package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.FloatVectors;
import dev.javaep.cpu.kernel.VectorSupport;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/** Relu, Sigmoid and Tanh on float32 or float64 tensors (output has the input's shape and type). */
record ElementwiseUnary(UnaryFunction function, ElementType elementType) implements CpuKernel {
    private static final ValueLayout.OfFloat F = ValueLayout.JAVA_FLOAT_UNALIGNED;
    private static final ValueLayout.OfDouble D = ValueLayout.JAVA_DOUBLE_UNALIGNED;

    ElementwiseUnary {
        if (elementType != ElementType.FLOAT && elementType != ElementType.DOUBLE) {
            throw new IllegalArgumentException(function.opType() + " does not support " + elementType);
        }
    }

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        return Shapes.likeTheOnlyInput(function.opType(), inputShapes);
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor x = inputs.get(0);
        Shapes.requireType(function.opType(), "input X", x, elementType);
        Shapes.requireType(function.opType(), "output Y", outputs.get(0), elementType);
        Shapes.requireOutputShape(function.opType(), outputs, x.shape());
        MemorySegment in = x.data();
        MemorySegment out = outputs.get(0).data();
        long n = x.elementCount();
        if (elementType == ElementType.FLOAT && VectorSupport.AVAILABLE && in.isNative() && out.isNative()) {
            FloatVectors.apply(switch (function) {
                case RELU -> FloatVectors.Activation.RELU;
                case SIGMOID -> FloatVectors.Activation.SIGMOID;
                case TANH -> FloatVectors.Activation.TANH;
            }, in, out, n);
        } else if (elementType == ElementType.FLOAT) {
            switch (function) {
                case RELU -> { for (long i = 0; i < n; i++) out.setAtIndex(F, i, Math.max(in.getAtIndex(F, i), 0f)); }
                case SIGMOID -> { for (long i = 0; i < n; i++) out.setAtIndex(F, i, (float) UnaryFunction.sigmoid(in.getAtIndex(F, i))); }
                case TANH -> { for (long i = 0; i < n; i++) out.setAtIndex(F, i, (float) Math.tanh(in.getAtIndex(F, i))); }
            }
        } else {
            switch (function) {
                case RELU -> { for (long i = 0; i < n; i++) out.setAtIndex(D, i, Math.max(in.getAtIndex(D, i), 0d)); }
                case SIGMOID -> { for (long i = 0; i < n; i++) out.setAtIndex(D, i, UnaryFunction.sigmoid(in.getAtIndex(D, i))); }
                case TANH -> { for (long i = 0; i < n; i++) out.setAtIndex(D, i, Math.tanh(in.getAtIndex(D, i))); }
            }
        }
    }
}
