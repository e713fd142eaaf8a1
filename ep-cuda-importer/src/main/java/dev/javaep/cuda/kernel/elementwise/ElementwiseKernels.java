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
        return java.util.stream.Stream.of(
                ElementwiseOps.ADD.stream().map(s -> binary(s, BinaryOp.ADD)), ElementwiseOps.SUB.stream().map(s -> binary(s, BinaryOp.SUB)),
                ElementwiseOps.MUL.stream().map(s -> binary(s, BinaryOp.MUL)), ElementwiseOps.DIV.stream().map(s -> binary(s, BinaryOp.DIV)),
                ElementwiseOps.RELU.stream().map(s -> unary(s, UnaryOp.RELU)), ElementwiseOps.SIGMOID.stream().map(s -> unary(s, UnaryOp.SIGMOID)),
                ElementwiseOps.TANH.stream().map(s -> unary(s, UnaryOp.TANH))).flatMap(x -> x).toList();
    }

    private static KernelTable.Row<CudaKernelFactory> binary(OpSchema schema, BinaryOp op) {
        return new KernelTable.Row<>(schema, "T", FLOAT, node -> device -> new ElementwiseBinaryNode(device, op));
    }

    private static KernelTable.Row<CudaKernelFactory> unary(OpSchema schema, UnaryOp op) {
        return new KernelTable.Row<>(schema, "T", FLOAT, node -> device -> new ElementwiseUnaryNode(device, op));
    }
}
