package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ElementwiseOps;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Min, Max, Sum and Mean of one or more inputs, all broadcast together (opset 8 and later): each output chunk
 * folds the inputs left to right in a lane (float types in double, so a float16 Sum rounds once), Mean divides
 * the sum by the input count.
 */
record VariadicKernel(String opType, BinaryMath step, boolean mean, ElementType elementType) implements CpuKernel {

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
    public long[][] outputShapes(long[][] inputShapes) {
        if (inputShapes.length == 0) {
            throw new IllegalArgumentException(opType + " needs at least one input");
        }
        for (long[] s : inputShapes) {
            Shapes.checked(s);
        }
        try {
            return new long[][] {ElementwiseOps.broadcastShape(inputShapes)};
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(opType + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        int count = inputs.size();
        long[][] shapes = new long[count][];
        MemorySegment[] data = new MemorySegment[count];
        for (int k = 0; k < count; k++) {
            Shapes.requireType(opType, "input " + k, inputs.get(k), elementType);
            shapes[k] = inputs.get(k).shape();
            data[k] = inputs.get(k).data();
        }
        Tensor y = outputs.get(0);
        Shapes.requireType(opType, "output", y, elementType);
        Shapes.requireOutputShapes(opType, outputs, outputShapes(shapes));
        BroadcastPlan plan = BroadcastPlan.of(shapes);
        MemorySegment ys = y.data();
        if (Lanes.isFloat(elementType)) {
            double[] acc = new double[Lanes.CHUNK];
            double[] next = new double[Lanes.CHUNK];
            plan.forEachChunk((o, starts, n) -> {
                Lanes.load(data[0], elementType, starts[0], plan.step(0), acc, n);
                for (int k = 1; k < count; k++) {
                    Lanes.load(data[k], elementType, starts[k], plan.step(k), next, n);
                    step.apply(acc, next, acc, n);
                }
                if (mean) {
                    for (int i = 0; i < n; i++) {
                        acc[i] /= count;
                    }
                }
                Lanes.store(ys, elementType, o, acc, n);
            });
        } else {
            boolean unsigned64 = elementType == ElementType.UINT64;
            long[] acc = new long[Lanes.CHUNK];
            long[] next = new long[Lanes.CHUNK];
            plan.forEachChunk((o, starts, n) -> {
                Lanes.load(data[0], elementType, starts[0], plan.step(0), acc, n);
                for (int k = 1; k < count; k++) {
                    Lanes.load(data[k], elementType, starts[k], plan.step(k), next, n);
                    step.apply(acc, next, acc, n, unsigned64);
                }
                Lanes.store(ys, elementType, o, acc, n);
            });
        }
    }
}
