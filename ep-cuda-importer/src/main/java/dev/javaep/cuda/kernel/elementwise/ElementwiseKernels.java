package dev.javaep.cuda.kernel.elementwise;

import dev.javaep.cuda.kernel.CudaKernelFactory;
import dev.javaep.cuda.kernel.ptx.CudaKernel.BinaryOp;
import dev.javaep.cuda.kernel.ptx.CudaKernel.UnaryOp;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ops.ElementwiseOps;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OpSchema;
import java.util.List;
import java.util.Set;

/** JavaCuda's rows for {@link ElementwiseOps}. */
public final class ElementwiseKernels {
    private static final Set<ElementType> FLOAT = Set.of(ElementType.FLOAT);

    private ElementwiseKernels() {}

    public static List<KernelTable.Row<CudaKernelFactory>> rows() {
        return List.of(
                binary(ElementwiseOps.ADD, BinaryOp.ADD), binary(ElementwiseOps.SUB, BinaryOp.SUB),
                binary(ElementwiseOps.MUL, BinaryOp.MUL), binary(ElementwiseOps.DIV, BinaryOp.DIV),
                unary(ElementwiseOps.RELU, UnaryOp.RELU), unary(ElementwiseOps.SIGMOID, UnaryOp.SIGMOID),
                unary(ElementwiseOps.TANH, UnaryOp.TANH));
    }

    private static KernelTable.Row<CudaKernelFactory> binary(OpSchema schema, BinaryOp op) {
        return new KernelTable.Row<>(schema, "T", FLOAT, node -> device -> new ElementwiseBinaryNode(device, op));
    }

    private static KernelTable.Row<CudaKernelFactory> unary(OpSchema schema, UnaryOp op) {
        return new KernelTable.Row<>(schema, "T", FLOAT, node -> device -> new ElementwiseUnaryNode(device, op));
    }
}
