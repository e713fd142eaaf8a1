package dev.javaep.cuda.kernel.matmul;

import dev.javaep.cuda.kernel.CudaKernelFactory;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.MatMulOps;
import java.util.List;
import java.util.Set;

/** JavaCuda's rows for {@link MatMulOps}. */
public final class MatMulKernels {
    private static final Set<ElementType> FLOAT = Set.of(ElementType.FLOAT);

    private MatMulKernels() {}

    public static List<KernelTable.Row<CudaKernelFactory>> rows() {
        return List.of(
                new KernelTable.Row<>(MatMulOps.MATMUL_13, "T", FLOAT, node -> device ->
                        new MatrixProductNode(device, MatrixProductNode.Kind.MATMUL, 1f, 0f, false, false)),
                new KernelTable.Row<>(MatMulOps.GEMM_7, "T", FLOAT, MatMulKernels::gemm),
                new KernelTable.Row<>(MatMulOps.GEMM_11, "T", FLOAT, MatMulKernels::gemm));
    }

    private static CudaKernelFactory gemm(Node node) {
        float alpha = node.floatAttribute("alpha", 1f);
        float beta = node.floatAttribute("beta", 1f);
        boolean transA = node.intAttribute("transA", 0) != 0;
        boolean transB = node.intAttribute("transB", 0) != 0;
        return device -> new MatrixProductNode(device, MatrixProductNode.Kind.GEMM, alpha, beta, transA, transB);
    }
}
