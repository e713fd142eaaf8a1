package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.FloatVectors;
import dev.javaep.cpu.kernel.VectorSupport;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ElementwiseOps.Activation;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * A unary elementwise op (activations, math, Neg/Abs/Sign, Not) on any type its {@link UnaryMath} is defined
 * for: float16, float32 and float64 compute on a double lane, integers and bool on a long lane, chunk by chunk.
 * (Relu, Sigmoid and Tanh on float32/float64 have the lane-free {@link ElementwiseUnary}.)
 */
record UnaryKernel(String opType, UnaryMath function, Activation parameters, ElementType elementType) implements CpuKernel {

    UnaryKernel {
        boolean ok = Lanes.isFloat(elementType) ? function != UnaryMath.NOT
                : Lanes.isInteger(elementType) && function.onIntegers() && (elementType == ElementType.BOOL) == (function == UnaryMath.NOT);
        if (!ok) {
            throw new IllegalArgumentException(opType + " is not implemented for " + elementType);
        }
    }

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        return Shapes.likeTheOnlyInput(opType, inputShapes);
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor x = inputs.get(0);
        Tensor y = outputs.get(0);
        Shapes.requireType(opType, "input X", x, elementType);
        Shapes.requireType(opType, "output Y", y, elementType);
        Shapes.requireOutputShape(opType, outputs, x.shape());
        MemorySegment in = x.data();
        MemorySegment out = y.data();
        long count = x.elementCount();
        FloatVectors.Activation vectorised = elementType == ElementType.FLOAT && VectorSupport.AVAILABLE && in.isNative() && out.isNative() ? switch (function) {
            case NEG -> FloatVectors.Activation.NEG;
            case ABS -> FloatVectors.Activation.ABS;
            case EXP -> FloatVectors.Activation.EXP;
            default -> null;
        } : null;
        if (vectorised != null) {
            FloatVectors.apply(vectorised, in, out, count); // float32 in float, without the double lane
        } else if (Lanes.isFloat(elementType)) {
            double[] lane = Lanes.threadDoubles();
            for (long c = 0; c < count; c += Lanes.CHUNK) {
                int n = (int) Math.min(Lanes.CHUNK, count - c);
                Lanes.load(in, elementType, c, 1, lane, n);
                function.apply(lane, lane, n, parameters);
                Lanes.store(out, elementType, c, lane, n);
            }
        } else {
            boolean unsigned64 = elementType == ElementType.UINT64;
            long[] lane = Lanes.threadLongs();
            for (long c = 0; c < count; c += Lanes.CHUNK) {
                int n = (int) Math.min(Lanes.CHUNK, count - c);
                Lanes.load(in, elementType, c, 1, lane, n);
                function.apply(lane, lane, n, unsigned64);
                Lanes.store(out, elementType, c, lane, n);
            }
        }
    }
}
