package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.ElementwiseOps;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Where(condition, X, Y): X's element where the condition is true, else Y's, the three broadcast together. It
 * moves elements without reading them as numbers, so one loop per element size serves every type of that size.
 * The broadcast walk is planned once per set of input shapes.
 */
record WhereKernel(ElementType elementType) implements PlannedKernel {
    private static final ValueLayout.OfByte B = ValueLayout.JAVA_BYTE;
    private static final ValueLayout.OfShort S = ValueLayout.JAVA_SHORT_UNALIGNED;
    private static final ValueLayout.OfInt I = ValueLayout.JAVA_INT_UNALIGNED;
    private static final ValueLayout.OfLong L = ValueLayout.JAVA_LONG_UNALIGNED;

    WhereKernel {
        int size = elementType.byteSize();
        if (size != 1 && size != 2 && size != 4 && size != 8) {
            throw new IllegalArgumentException("Where is not implemented for " + elementType);
        }
    }

    @Override
    public Plan plan(long[][] inputShapes) {
        if (inputShapes.length != 3) {
            throw new IllegalArgumentException("Where takes 3 inputs, got " + inputShapes.length);
        }
        for (long[] s : inputShapes) {
            Shapes.checked(s);
        }
        long[] out;
        try {
            out = ElementwiseOps.broadcastShape(inputShapes);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Where: " + e.getMessage(), e);
        }
        return new SelectPlan(out, BroadcastPlan.of(inputShapes));
    }

    /** The broadcast walk of one set of input shapes, and the chunk loop it drives (itself: no lambda per Run). */
    private final class SelectPlan extends ShapedPlan implements BroadcastPlan.ChunkAction {
        private final BroadcastPlan walk;
        /** This Run's segments, set for the walk only. */
        private MemorySegment c;
        private MemorySegment xs;
        private MemorySegment ys;
        private MemorySegment os;

        SelectPlan(long[] outputShape, BroadcastPlan walk) {
            super(new long[][] {outputShape});
            this.walk = walk;
        }

        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            Tensor condition = inputs.get(0);
            Tensor x = inputs.get(1);
            Tensor y = inputs.get(2);
            Tensor out = outputs.get(0);
            Shapes.requireType("Where", "condition", condition, ElementType.BOOL);
            Shapes.requireType("Where", "X", x, elementType);
            Shapes.requireType("Where", "Y", y, elementType);
            Shapes.requireType("Where", "output", out, elementType);
            Shapes.requireOutputShapes("Where", outputs, outputShapes());
            c = condition.data();
            xs = x.data();
            ys = y.data();
            os = out.data();
            try {
                walk.forEachChunk(this);
            } finally {
                c = xs = ys = os = null;
            }
        }

        @Override
        public void chunk(long o, long[] starts, int n) {
            long ci = starts[0];
            long xi = starts[1];
            long yi = starts[2];
            long cStep = walk.step(0);
            long xStep = walk.step(1);
            long yStep = walk.step(2);
            switch (elementType.byteSize()) {
                case 1 -> { for (int i = 0; i < n; i++) os.setAtIndex(B, o + i, c.getAtIndex(B, ci + i * cStep) != 0 ? xs.getAtIndex(B, xi + i * xStep) : ys.getAtIndex(B, yi + i * yStep)); }
                case 2 -> { for (int i = 0; i < n; i++) os.setAtIndex(S, o + i, c.getAtIndex(B, ci + i * cStep) != 0 ? xs.getAtIndex(S, xi + i * xStep) : ys.getAtIndex(S, yi + i * yStep)); }
                case 4 -> { for (int i = 0; i < n; i++) os.setAtIndex(I, o + i, c.getAtIndex(B, ci + i * cStep) != 0 ? xs.getAtIndex(I, xi + i * xStep) : ys.getAtIndex(I, yi + i * yStep)); }
                default -> { for (int i = 0; i < n; i++) os.setAtIndex(L, o + i, c.getAtIndex(B, ci + i * cStep) != 0 ? xs.getAtIndex(L, xi + i * xStep) : ys.getAtIndex(L, yi + i * yStep)); }
            }
        }
    }
}
