package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ElementwiseOps;
import java.lang.foreign.MemorySegment;
import java.util.List;

/**
 * Clip: {@code y = min(max(x, lo), hi)}, so a min above max gives max everywhere (as ONNX specifies) and NaN
 * stays NaN. Clip-6 takes the bounds from attributes, Clip-11 and later from optional scalar inputs (an omitted
 * bound does not clip).
 *
 * @param boundsFromAttributes Clip-6: {@code attributeMin}/{@code attributeMax} are the bounds
 */
record ClipKernel(ElementType elementType, boolean boundsFromAttributes, float attributeMin, float attributeMax)
        implements PlannedKernel {

    ClipKernel {
        if (!(Lanes.isFloat(elementType) || Lanes.isInteger(elementType) && elementType != ElementType.BOOL)) {
            throw new IllegalArgumentException("Clip is not implemented for " + elementType);
        }
    }

    @Override
    public Plan plan(long[][] inputShapes) {
        if (inputShapes.length < 1 || inputShapes.length > (boundsFromAttributes ? 1 : 3)) {
            throw new IllegalArgumentException("Clip takes " + (boundsFromAttributes ? "1 input" : "1 to 3 inputs")
                    + ", got " + inputShapes.length);
        }
        for (int i = 1; i < inputShapes.length; i++) {
            ElementwiseOps.requireClipBound(inputShapes[i], i == 1 ? "min" : "max");
        }
        return new ClipPlan(Shapes.checked(inputShapes[0]).clone());
    }

    /** One input shape's output shape and the lanes its Runs clip in, made once. */
    private final class ClipPlan extends ShapedPlan {
        private final double[] floats;
        private final long[] integers;

        ClipPlan(long[] shape) {
            super(new long[][] {shape});
            int lane = (int) Math.min(Lanes.CHUNK, Shapes.elementCount(shape));
            this.floats = Lanes.isFloat(elementType) ? new double[Math.max(lane, 1)] : null;
            this.integers = Lanes.isFloat(elementType) ? null : new long[Math.max(lane, 1)];
        }

        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            Tensor x = inputs.get(0);
            Tensor y = outputs.get(0);
            Shapes.requireTypes("Clip", x, elementType, y, elementType);
            Shapes.requireOutputShapes("Clip", outputs, outputShapes());
            Tensor min = inputs.size() > 1 ? inputs.get(1) : null;
            Tensor max = inputs.size() > 2 ? inputs.get(2) : null;
            if (min != null) {
                Shapes.requireType("Clip", "bound", min, elementType);
            }
            if (max != null) {
                Shapes.requireType("Clip", "bound", max, elementType);
            }
            MemorySegment in = x.data();
            MemorySegment out = y.data();
            long count = x.elementCount();
            if (floats != null) {
                double lo = boundsFromAttributes ? attributeMin : min == null ? Double.NEGATIVE_INFINITY : floatBound(min);
                double hi = boundsFromAttributes ? attributeMax : max == null ? Double.POSITIVE_INFINITY : floatBound(max);
                double[] lane = floats;
                for (long c = 0; c < count; c += Lanes.CHUNK) {
                    int n = (int) Math.min(Lanes.CHUNK, count - c);
                    Lanes.load(in, elementType, c, 1, lane, n);
                    for (int i = 0; i < n; i++) {
                        double v = lane[i] < lo ? lo : lane[i];
                        lane[i] = v > hi ? hi : v;
                    }
                    Lanes.store(out, elementType, c, lane, n);
                }
            } else {
                boolean unsigned64 = elementType == ElementType.UINT64;
                long lo = min == null ? (unsigned64 ? 0 : Long.MIN_VALUE) : integerBound(min);
                long hi = max == null ? (unsigned64 ? -1L : Long.MAX_VALUE) : integerBound(max);
                // Unsigned comparison is signed comparison after flipping the top bit.
                long flip = unsigned64 ? Long.MIN_VALUE : 0;
                long loKey = lo ^ flip;
                long hiKey = hi ^ flip;
                long[] lane = integers;
                for (long c = 0; c < count; c += Lanes.CHUNK) {
                    int n = (int) Math.min(Lanes.CHUNK, count - c);
                    Lanes.load(in, elementType, c, 1, lane, n);
                    for (int i = 0; i < n; i++) {
                        long v = (lane[i] ^ flip) < loKey ? lo : lane[i];
                        lane[i] = (v ^ flip) > hiKey ? hi : v;
                    }
                    Lanes.store(out, elementType, c, lane, n);
                }
            }
        }

        /** The scalar bound, read through the lane (its first element is overwritten before the clip reads it). */
        private double floatBound(Tensor bound) {
            Lanes.load(bound.data(), elementType, 0, 0, floats, 1);
            return floats[0];
        }

        private long integerBound(Tensor bound) {
            Lanes.load(bound.data(), elementType, 0, 0, integers, 1);
            return integers[0];
        }
    }
}
