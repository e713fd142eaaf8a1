package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.BroadcastRows;
import dev.javaep.cpu.kernel.PlannedKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Add, Sub, Mul and Div (opset 7 and later) with multidirectional broadcasting, for two inputs and
 * an output of one element type. The broadcast walk is planned once per pair of input shapes.
 */
record ElementwiseBinary(ArithmeticOp op, ElementType elementType) implements PlannedKernel {

    static final Set<ElementType> SUPPORTED_TYPES = EnumSet.of(
            ElementType.FLOAT, ElementType.DOUBLE,
            ElementType.INT8, ElementType.INT16, ElementType.INT32, ElementType.INT64,
            ElementType.UINT8, ElementType.UINT16, ElementType.UINT32, ElementType.UINT64);

    ElementwiseBinary {
        if (!SUPPORTED_TYPES.contains(elementType)) {
            throw new IllegalArgumentException(op.opType() + " does not support " + elementType);
        }
    }

    @Override
    public Plan plan(long[][] inputShapes) {
        if (inputShapes.length != 2) {
            throw new IllegalArgumentException(op.opType() + " takes 2 inputs, got " + inputShapes.length);
        }
        try {
            return new RowsPlan(BroadcastRows.of(Shapes.checked(inputShapes[0]), Shapes.checked(inputShapes[1])));
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(op.opType() + ": " + e.getMessage(), e);
        }
    }

    /** The broadcast walk of one pair of input shapes, and the row loop it drives (itself: no lambda per Run). */
    private final class RowsPlan extends ShapedPlan implements BroadcastRows.RowAction {
        private final BroadcastRows rows;
        private final long[] counter;
        /** This Run's segments, set for the walk only. */
        private MemorySegment as;
        private MemorySegment bs;
        private MemorySegment ys;

        RowsPlan(BroadcastRows rows) {
            super(new long[][] {rows.outputShape()});
            this.rows = rows;
            this.counter = rows.newCounter();
        }

        @Override
        public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
            Tensor a = inputs.get(0);
            Tensor b = inputs.get(1);
            Tensor y = outputs.get(0);
            Shapes.requireType(op.opType(), "input A", a, elementType);
            Shapes.requireType(op.opType(), "input B", b, elementType);
            Shapes.requireType(op.opType(), "output C", y, elementType);
            Shapes.requireOutputShapes(op.opType(), outputs, outputShapes());
            as = a.data();
            bs = b.data();
            ys = y.data();
            try {
                rows.forEachRow(this, counter);
            } catch (ArithmeticException e) {
                // Only integer division raises this; C would crash or return garbage, we name the cause.
                throw new ArithmeticException(op.opType() + ": integer division by zero: the divisor (input B, "
                        + elementType + ") contains 0, for which ONNX defines no result");
            } finally {
                as = bs = ys = null;
            }
        }

        @Override
        public void row(long o, long ai, long bi) {
            long n = rows.rowLength();
            switch (elementType) {
                case FLOAT -> FloatBinaryLoops.row(op, as, ai, rows.aStep(), bs, bi, rows.bStep(), ys, o, n);
                case DOUBLE -> DoubleBinaryLoops.row(op, as, ai, rows.aStep(), bs, bi, rows.bStep(), ys, o, n);
                default -> IntegerBinaryLoops.row(op, elementType, as, ai, rows.aStep(), bs, bi, rows.bStep(), ys, o, n);
            }
        }
    }
}
