package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ElementwiseOps;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * A binary elementwise op with multidirectional broadcasting (PRelu: the slope broadcast to X) on lanes:
 * arithmetic on the types {@link ElementwiseBinary} does not cover (float16), Pow, Mod, PRelu, Min/Max of two,
 * comparisons and And/Or/Xor (bool output).
 *
 * @param inputType    A's type (T)
 * @param rightType    B's type: T, or Pow's exponent type T1
 * @param outputType   T, or bool for comparisons and logic
 */
record BinaryKernel(String opType, BinaryMath function, ElementType inputType, ElementType rightType, ElementType outputType)
        implements CpuKernel {

    BinaryKernel {
        boolean lanes = function == BinaryMath.POW
                ? (Lanes.isFloat(inputType) || Lanes.isInteger(inputType)) && (Lanes.isFloat(rightType) || Lanes.isInteger(rightType))
                : rightType == inputType && (Lanes.isFloat(inputType) || Lanes.isInteger(inputType));
        boolean logic = function == BinaryMath.AND || function == BinaryMath.OR || function == BinaryMath.XOR;
        if (!lanes || inputType == ElementType.BOOL && !(logic || function == BinaryMath.EQUAL)
                || logic && inputType != ElementType.BOOL
                || function == BinaryMath.MOD && Lanes.isFloat(inputType)
                || outputType != (function.yieldsBool() ? ElementType.BOOL : inputType)) {
            throw new IllegalArgumentException(opType + " is not implemented for " + inputType + ", " + rightType + " -> " + outputType);
        }
    }

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        if (inputShapes.length != 2) {
            throw new IllegalArgumentException(opType + " takes 2 inputs, got " + inputShapes.length);
        }
        long[] a = Shapes.checked(inputShapes[0]);
        long[] b = Shapes.checked(inputShapes[1]);
        try {
            return new long[][] {function == BinaryMath.PRELU ? ElementwiseOps.preluShape(a, b) : ElementwiseOps.broadcastShape(a, b)};
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(opType + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor a = inputs.get(0);
        Tensor b = inputs.get(1);
        Tensor y = outputs.get(0);
        Shapes.requireType(opType, "input A", a, inputType);
        Shapes.requireType(opType, "input B", b, rightType);
        Shapes.requireType(opType, "output C", y, outputType);
        Shapes.requireOutputShapes(opType, outputs, outputShapes(new long[][] {a.shape(), b.shape()}));
        BroadcastPlan plan = BroadcastPlan.of(a.shape(), b.shape());
        MemorySegment as = a.data();
        MemorySegment bs = b.data();
        MemorySegment ys = y.data();
        long aStep = plan.step(0);
        long bStep = plan.step(1);
        try {
            if (function == BinaryMath.POW) {
                pow(plan, as, aStep, bs, bStep, ys);
            } else if (Lanes.isFloat(inputType)) {
                double[] x = new double[Lanes.CHUNK];
                double[] z = new double[Lanes.CHUNK];
                long[] bools = function.yieldsBool() ? new long[Lanes.CHUNK] : null;
                plan.forEachChunk((o, starts, n) -> {
                    Lanes.load(as, inputType, starts[0], aStep, x, n);
                    Lanes.load(bs, inputType, starts[1], bStep, z, n);
                    if (bools != null) {
                        function.compare(x, z, bools, n);
                        Lanes.store(ys, ElementType.BOOL, o, bools, n);
                    } else {
                        function.apply(x, z, x, n);
                        Lanes.store(ys, outputType, o, x, n);
                    }
                });
            } else {
                boolean unsigned64 = inputType == ElementType.UINT64;
                long[] x = new long[Lanes.CHUNK];
                long[] z = new long[Lanes.CHUNK];
                plan.forEachChunk((o, starts, n) -> {
                    Lanes.load(as, inputType, starts[0], aStep, x, n);
                    Lanes.load(bs, inputType, starts[1], bStep, z, n);
                    function.apply(x, z, x, n, unsigned64);
                    Lanes.store(ys, outputType, o, x, n);
                });
            }
        } catch (ArithmeticException e) {
            throw new ArithmeticException(opType + ": integer division by zero: input B (" + inputType
                    + ") contains 0, for which ONNX defines no result");
        }
    }

    /** Pow on doubles for every type pair (ONNX Runtime: {@code static_cast<T>(std::pow(x, y))}); integer results truncate. */
    private void pow(BroadcastPlan plan, MemorySegment as, long aStep, MemorySegment bs, long bStep, MemorySegment ys) {
        double[] x = new double[Lanes.CHUNK];
        double[] z = new double[Lanes.CHUNK];
        long[] integers = Lanes.isFloat(outputType) ? null : new long[Lanes.CHUNK];
        boolean unsigned64 = outputType == ElementType.UINT64;
        plan.forEachChunk((o, starts, n) -> {
            Lanes.load(as, inputType, starts[0], aStep, x, n);
            Lanes.load(bs, rightType, starts[1], bStep, z, n);
            function.apply(x, z, x, n);
            if (integers == null) {
                Lanes.store(ys, outputType, o, x, n);
            } else {
                for (int i = 0; i < n; i++) {
                    integers[i] = unsigned64 ? Lanes.doubleToUnsigned(x[i]) : (long) x[i];
                }
                Lanes.store(ys, outputType, o, integers, n);
            }
        });
    }
}
