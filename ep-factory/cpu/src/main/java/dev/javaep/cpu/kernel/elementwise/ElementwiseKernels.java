package dev.javaep.cpu.kernel.elementwise;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ops.ElementwiseOps;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OpSchema;
import java.util.List;
import java.util.Set;

/** JavaCpu's rows for {@link ElementwiseOps}. */
public final class ElementwiseKernels {
    private static final Set<ElementType> FLOAT_DOUBLE = Set.of(ElementType.FLOAT, ElementType.DOUBLE);

    private ElementwiseKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        return List.of(
                binary(ElementwiseOps.ADD, ArithmeticOp.ADD), binary(ElementwiseOps.SUB, ArithmeticOp.SUB),
                binary(ElementwiseOps.MUL, ArithmeticOp.MUL), binary(ElementwiseOps.DIV, ArithmeticOp.DIV),
                unary(ElementwiseOps.RELU, UnaryFunction.RELU), unary(ElementwiseOps.SIGMOID, UnaryFunction.SIGMOID),
                unary(ElementwiseOps.TANH, UnaryFunction.TANH));
    }

    private static KernelTable.Row<CpuKernel> binary(OpSchema schema, ArithmeticOp op) {
        return new KernelTable.Row<>(schema, "T", ElementwiseBinary.SUPPORTED_TYPES,
                node -> new ElementwiseBinary(op, schema.typeOf(node, "T")));
    }

    private static KernelTable.Row<CpuKernel> unary(OpSchema schema, UnaryFunction function) {
        return new KernelTable.Row<>(schema, "T", FLOAT_DOUBLE, node -> new ElementwiseUnary(function, schema.typeOf(node, "T")));
    }
}
