package dev.javaep.cpu.kernel.matmul;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.cpu.kernel.Shapes;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Tensor;
import dev.javaep.spi.ops.MatMulOps.EinsumGeometry;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.util.List;

/**
 * Einsum on float32, float64 and float16, by its definition: for each output element (an assignment of the output
 * labels), the sum over every assignment of the summed labels of the product of the operands' elements
 * ({@link EinsumGeometry} gives each operand's stride per label). Operands are widened to double first and the sum
 * is kept in double. Correct for any equation; as fast as a naive loop (models whose einsums are batched matrix
 * products are better exported as MatMul).
 */
record EinsumKernel(String equation, ElementType type) implements CpuKernel {

    private EinsumGeometry geometry(long[][] shapes) {
        for (long[] s : shapes) {
            Shapes.checked(s);
        }
        return EinsumGeometry.of(equation, shapes);
    }

    @Override
    public long[][] outputShapes(long[][] inputShapes) {
        return new long[][] {geometry(inputShapes).outputShape()};
    }

    @Override
    public void compute(List<? extends Tensor> inputs, List<? extends Tensor> outputs) {
        int n = inputs.size();
        double[][] x = new double[n][];
        for (int i = 0; i < n; i++) {
            Shapes.requireType("Einsum", "input " + i, inputs.get(i), type);
            x[i] = widen(inputs.get(i));
        }
        Tensor y = outputs.getFirst();
        Shapes.requireType("Einsum", "output", y, type);
        EinsumGeometry g = geometry(Shapes.shapesOf(inputs));
        Shapes.requireOutputShape("Einsum", outputs, g.outputShape());
        long[] sizes = g.labelSizes();
        int out = g.outputLabels();
        int labels = sizes.length;
        long[][] strides = g.inputStrides();
        long count = Shapes.elementCount(g.outputShape());
        long summed = g.summedCount();
        long[] counter = new long[labels];
        long[] offset = new long[n];
        MemorySegment ys = y.data();
        for (long o = 0; o < count; o++) {
            double acc = 0;
            for (long s = 0; s < summed; s++) {
                double product = 1;
                for (int i = 0; i < n; i++) {
                    product *= x[i][(int) offset[i]];
                }
                acc += product;
                advance(counter, offset, sizes, strides, out, labels);
            }
            write(ys, o, acc);
            // the summed labels are back at 0; move to the next output element
            advance(counter, offset, sizes, strides, 0, out);
        }
    }

    /** One step of the odometer over labels [from, to), innermost last, moving each operand's offset. */
    private static void advance(long[] counter, long[] offset, long[] sizes, long[][] strides, int from, int to) {
        for (int l = to - 1; l >= from; l--) {
            for (int i = 0; i < offset.length; i++) {
                offset[i] += strides[i][l];
            }
            if (++counter[l] < sizes[l]) {
                return;
            }
            counter[l] = 0;
            for (int i = 0; i < offset.length; i++) {
                offset[i] -= strides[i][l] * sizes[l];
            }
        }
    }

    private double[] widen(Tensor t) {
        int count = Math.toIntExact(t.elementCount());
        double[] v = new double[count];
        MemorySegment d = t.data();
        for (int i = 0; i < count; i++) {
            v[i] = switch (type) {
                case FLOAT -> d.getAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, i);
                case DOUBLE -> d.getAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, i);
                case FLOAT16 -> Float.float16ToFloat(d.getAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, i));
                default -> throw new IllegalArgumentException("Einsum on " + type);
            };
        }
        return v;
    }

    private void write(MemorySegment y, long index, double value) {
        switch (type) {
            case FLOAT -> y.setAtIndex(ValueLayout.JAVA_FLOAT_UNALIGNED, index, (float) value);
            case DOUBLE -> y.setAtIndex(ValueLayout.JAVA_DOUBLE_UNALIGNED, index, value);
            case FLOAT16 -> y.setAtIndex(ValueLayout.JAVA_SHORT_UNALIGNED, index, Float.floatToFloat16((float) value));
            default -> throw new IllegalArgumentException("Einsum on " + type);
        }
    }
}
