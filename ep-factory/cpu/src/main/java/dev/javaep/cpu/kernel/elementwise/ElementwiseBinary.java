package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.BroadcastRows;
import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.Broadcasting;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import java.lang.foreign.MemorySegment;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Add, Sub, Mul and Div (opset 7 and later) with multidirectional broadcasting, for two inputs and
 * an output of one element type.
 */
record ElementwiseBinary(ArithmeticOp op, ElementType elementType) implements CpuKernel {

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
    public long[][] outputShapes(long[][] inputShapes) {
        if (inputShapes.length != 2) {
            throw new IllegalArgumentException(op.opType() + " takes 2 inputs, got " + inputShapes.length);
        }
        try {
            return new long[][] {Broadcasting.multidirectional(Shapes.checked(inputShapes[0]), Shapes.checked(inputShapes[1]))};
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException(op.opType() + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        Tensor a = inputs.get(0);
        Tensor b = inputs.get(1);
        Tensor y = outputs.get(0);
        Shapes.requireType(op.opType(), "input A", a, elementType);
        Shapes.requireType(op.opType(), "input B", b, elementType);
        Shapes.requireType(op.opType(), "output C", y, elementType);
        BroadcastRows rows = BroadcastRows.of(a.shape(), b.shape());
        Shapes.requireOutputShapes(op.opType(), outputs, new long[][] {rows.outputShape()});

        MemorySegment as = a.data();
        MemorySegment bs = b.data();
        MemorySegment ys = y.data();
        long n = rows.rowLength();
        long aStep = rows.aStep();
        long bStep = rows.bStep();
        try {
            switch (elementType) {
                case FLOAT -> rows.forEachRow((o, ai, bi) -> FloatBinaryLoops.row(op, as, ai, aStep, bs, bi, bStep, ys, o, n));
                case DOUBLE -> rows.forEachRow((o, ai, bi) -> DoubleBinaryLoops.row(op, as, ai, aStep, bs, bi, bStep, ys, o, n));
                default -> rows.forEachRow(
                        (o, ai, bi) -> IntegerBinaryLoops.row(op, elementType, as, ai, aStep, bs, bi, bStep, ys, o, n));
            }
        } catch (ArithmeticException e) {
            // Only integer division raises this; C would crash or return garbage, we name the cause.
            throw new ArithmeticException(op.opType() + ": integer division by zero: the divisor (input B, "
                    + elementType + ") contains 0, for which ONNX defines no result");
        }
    }
}
