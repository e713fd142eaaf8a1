package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.CpuKernel;
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
 */
record WhereKernel(ElementType elementType) implements CpuKernel {
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
    public long[][] outputShapes(long[][] inputShapes) {
        if (inputShapes.length != 3) {
            throw new IllegalArgumentException("Where takes 3 inputs, got " + inputShapes.length);
        }
        for (long[] s : inputShapes) {
            Shapes.checked(s);
        }
        try {
            return new long[][] {ElementwiseOps.broadcastShape(inputShapes)};
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("Where: " + e.getMessage(), e);
        }
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
        Shapes.requireOutputShapes("Where", outputs, outputShapes(Shapes.shapesOf(inputs)));
        BroadcastPlan plan = BroadcastPlan.of(condition.shape(), x.shape(), y.shape());
        MemorySegment c = condition.data();
        MemorySegment xs = x.data();
        MemorySegment ys = y.data();
        MemorySegment os = out.data();
        long cStep = plan.step(0);
        long xStep = plan.step(1);
        long yStep = plan.step(2);
        int size = elementType.byteSize();
        plan.forEachChunk((o, starts, n) -> {
            long ci = starts[0];
            long xi = starts[1];
            long yi = starts[2];
            switch (size) {
                case 1 -> { for (int i = 0; i < n; i++) os.setAtIndex(B, o + i, c.getAtIndex(B, ci + i * cStep) != 0 ? xs.getAtIndex(B, xi + i * xStep) : ys.getAtIndex(B, yi + i * yStep)); }
                case 2 -> { for (int i = 0; i < n; i++) os.setAtIndex(S, o + i, c.getAtIndex(B, ci + i * cStep) != 0 ? xs.getAtIndex(S, xi + i * xStep) : ys.getAtIndex(S, yi + i * yStep)); }
                case 4 -> { for (int i = 0; i < n; i++) os.setAtIndex(I, o + i, c.getAtIndex(B, ci + i * cStep) != 0 ? xs.getAtIndex(I, xi + i * xStep) : ys.getAtIndex(I, yi + i * yStep)); }
                default -> { for (int i = 0; i < n; i++) os.setAtIndex(L, o + i, c.getAtIndex(B, ci + i * cStep) != 0 ? xs.getAtIndex(L, xi + i * xStep) : ys.getAtIndex(L, yi + i * yStep)); }
            }
        });
    }
}
