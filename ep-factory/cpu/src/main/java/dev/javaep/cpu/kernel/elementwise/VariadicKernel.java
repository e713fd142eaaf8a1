package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ElementwiseOps;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;
import java.util.List;

/**
 * Min, Max, Sum and Mean of one or more inputs, all broadcast together (opset 8 and later): each output chunk
 * folds the inputs left to right in a lane (float types in double, so a float16 Sum rounds once), Mean divides
 * the sum by the input count. The broadcast walk and the lanes are planned once per set of input shapes.
 */
record VariadicKernel(String opType, BinaryMath step, boolean mean, ElementType elementType) implements PlannedKernel {

    VariadicKernel {
        if (!(Lanes.isFloat(elementType) || Lanes.isInteger(elementType) && elementType != ElementType.BOOL
                && (step == BinaryMath.MIN || step == BinaryMath.MAX))) {
            throw new IllegalArgumentException(opType + " is not implemented for " + elementType);
        }
    }

    static VariadicKernel of(String opType, ElementType type) {
        return new VariadicKernel(opType, BinaryMath.of(opType), opType.equals("Mean"), type);
    }

    @Override
    public Plan plan(long[][] inputShapes) {
        if (inputShapes.length == 0) {
            throw new IllegalArgumentException(opType + " needs at least one input");
        }
        for (long[] s : inputShapes) {
            Shapes.checked(s);
        }
        long[] out;
        try {
            out = ElementwiseOps.broadcastShape(inputShapes);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(opType + ": " + e.getMessage(), e);
        }
        return new FoldPlan(out, BroadcastPlan.of(inputShapes), inputShapes.length);
    }

    /** The broadcast walk of one set of input shapes, its lanes, and the chunk loop it drives (itself: no lambda per Run). */
    private final class FoldPlan extends ShapedPlan implements BroadcastPlan.ChunkAction {
        private final BroadcastPlan walk;
        private final double[] acc;
        private final double[] next;
        private final long[] accLong;
        private final long[] nextLong;
        /** This Run's input segments and output, set for the walk only. */
        private final MemorySegment[] data;
        private MemorySegment ys;

        FoldPlan(long[] outputShape, BroadcastPlan walk, int inputs) {
            super(new long[][] {outputShape});
            this.walk = walk;
            boolean floating = Lanes.isFloat(elementType);
            this.acc = floating ? new double[Lanes.CHUNK] : null;
            this.next = floating ? new double[Lanes.CHUNK] : null;
            this.accLong = floating ? null : new long[Lanes.CHUNK];
            this.nextLong = floating ? null : new long[Lanes.CHUNK];
            this.data = new MemorySegment[inputs];
        }

        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            for (int k = 0; k < data.length; k++) {
                Tensor x = inputs.get(k);
                if (x.elementType() != elementType) {
                    Shapes.requireType(opType, "input " + k, x, elementType); // throws, naming the input
                }
                data[k] = x.data();
            }
            Tensor y = outputs.get(0);
            Shapes.requireType(opType, "output", y, elementType);
            Shapes.requireOutputShapes(opType, outputs, outputShapes());
            ys = y.data();
            try {
                walk.forEachChunk(this);
            } finally {
                Arrays.fill(data, null);
                ys = null;
            }
        }

        @Override
        public void chunk(long o, long[] starts, int n) {
            int count = data.length;
            if (acc != null) {
                Lanes.load(data[0], elementType, starts[0], walk.step(0), acc, n);
                for (int k = 1; k < count; k++) {
                    Lanes.load(data[k], elementType, starts[k], walk.step(k), next, n);
                    step.apply(acc, next, acc, n);
                }
                if (mean) {
                    for (int i = 0; i < n; i++) {
                        acc[i] /= count;
                    }
                }
                Lanes.store(ys, elementType, o, acc, n);
            } else {
                boolean unsigned64 = elementType == ElementType.UINT64;
                Lanes.load(data[0], elementType, starts[0], walk.step(0), accLong, n);
                for (int k = 1; k < count; k++) {
                    Lanes.load(data[k], elementType, starts[k], walk.step(k), nextLong, n);
                    step.apply(accLong, nextLong, accLong, n, unsigned64);
                }
                Lanes.store(ys, elementType, o, accLong, n);
            }
        }
    }
}
