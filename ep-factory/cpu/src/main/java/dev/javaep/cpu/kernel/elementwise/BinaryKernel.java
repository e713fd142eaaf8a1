package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.PlannedKernel;
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
 * <p>The broadcast walk and the lanes are planned once per pair of input shapes.
 *
 * @param inputType    A's type (T)
 * @param rightType    B's type: T, or Pow's exponent type T1
 * @param outputType   T, or bool for comparisons and logic
 */
record BinaryKernel(String opType, BinaryMath function, ElementType inputType, ElementType rightType, ElementType outputType)
        implements PlannedKernel {

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
    public Plan plan(long[][] inputShapes) {
        if (inputShapes.length != 2) {
            throw new IllegalArgumentException(opType + " takes 2 inputs, got " + inputShapes.length);
        }
        long[] a = Shapes.checked(inputShapes[0]);
        long[] b = Shapes.checked(inputShapes[1]);
        long[] y;
        try {
            y = function == BinaryMath.PRELU ? ElementwiseOps.preluShape(a, b) : ElementwiseOps.broadcastShape(a, b);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(opType + ": " + e.getMessage(), e);
        }
        return new ChunksPlan(y, BroadcastPlan.of(a, b));
    }

    /** The broadcast walk of one pair of input shapes, its lanes, and the chunk loop it drives (itself: no lambda per Run). */
    private final class ChunksPlan extends ShapedPlan implements BroadcastPlan.ChunkAction {
        private final BroadcastPlan walk;
        private final double[] x = new double[Lanes.CHUNK];
        private final double[] z = new double[Lanes.CHUNK];
        private final long[] xLong;
        private final long[] zLong;
        /** Comparisons' results, or Pow's integer results. */
        private final long[] results;
        /** This Run's segments, set for the walk only. */
        private MemorySegment as;
        private MemorySegment bs;
        private MemorySegment ys;

        ChunksPlan(long[] outputShape, BroadcastPlan walk) {
            super(new long[][] {outputShape});
            this.walk = walk;
            boolean floatLanes = function == BinaryMath.POW || Lanes.isFloat(inputType);
            this.xLong = floatLanes ? null : new long[Lanes.CHUNK];
            this.zLong = floatLanes ? null : new long[Lanes.CHUNK];
            this.results = function.yieldsBool() || function == BinaryMath.POW && !Lanes.isFloat(outputType)
                    ? new long[Lanes.CHUNK] : null;
        }

        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            Tensor a = inputs.get(0);
            Tensor b = inputs.get(1);
            Tensor y = outputs.get(0);
            Shapes.requireType(opType, "input A", a, inputType);
            Shapes.requireType(opType, "input B", b, rightType);
            Shapes.requireType(opType, "output C", y, outputType);
            Shapes.requireOutputShapes(opType, outputs, outputShapes());
            as = a.data();
            bs = b.data();
            ys = y.data();
            try {
                walk.forEachChunk(this);
            } catch (ArithmeticException e) {
                throw new ArithmeticException(opType + ": integer division by zero: input B (" + inputType
                        + ") contains 0, for which ONNX defines no result");
            } finally {
                as = bs = ys = null;
            }
        }

        @Override
        public void chunk(long o, long[] starts, int n) {
            long aStep = walk.step(0);
            long bStep = walk.step(1);
            if (function == BinaryMath.POW) {
                // Pow on doubles for every type pair (ONNX Runtime: static_cast<T>(std::pow(x, y))); integer results truncate
                Lanes.load(as, inputType, starts[0], aStep, x, n);
                Lanes.load(bs, rightType, starts[1], bStep, z, n);
                function.apply(x, z, x, n);
                if (results == null) {
                    Lanes.store(ys, outputType, o, x, n);
                } else {
                    boolean unsigned64 = outputType == ElementType.UINT64;
                    for (int i = 0; i < n; i++) {
                        results[i] = unsigned64 ? Lanes.doubleToUnsigned(x[i]) : (long) x[i];
                    }
                    Lanes.store(ys, outputType, o, results, n);
                }
            } else if (Lanes.isFloat(inputType)) {
                Lanes.load(as, inputType, starts[0], aStep, x, n);
                Lanes.load(bs, inputType, starts[1], bStep, z, n);
                if (function.yieldsBool()) {
                    function.compare(x, z, results, n);
                    Lanes.store(ys, ElementType.BOOL, o, results, n);
                } else {
                    function.apply(x, z, x, n);
                    Lanes.store(ys, outputType, o, x, n);
                }
            } else {
                Lanes.load(as, inputType, starts[0], aStep, xLong, n);
                Lanes.load(bs, inputType, starts[1], bStep, zLong, n);
                function.apply(xLong, zLong, xLong, n, inputType == ElementType.UINT64);
                Lanes.store(ys, outputType, o, xLong, n);
            }
        }
    }
}
