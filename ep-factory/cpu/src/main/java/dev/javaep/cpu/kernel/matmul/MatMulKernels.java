package dev.javaep.cpu.kernel.matmul;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.MatMulOps;
import java.util.List;
import java.util.Set;

/** JavaCpu's rows for {@link MatMulOps}. */
public final class MatMulKernels {
    private static final Set<ElementType> FLOAT = Set.of(ElementType.FLOAT);

    private MatMulKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        return List.of(
                new KernelTable.Row<>(MatMulOps.MATMUL, "T", FLOAT, node -> new MatMulKernel()),
                new KernelTable.Row<>(MatMulOps.GEMM_7, "T", FLOAT, MatMulKernels::gemm),
                new KernelTable.Row<>(MatMulOps.GEMM_11, "T", FLOAT, MatMulKernels::gemm));
    }

    private static CpuKernel gemm(Node node) {
        return new GemmKernel(node.floatAttribute("alpha", 1f), node.floatAttribute("beta", 1f),
                node.intAttribute("transA", 0) != 0, node.intAttribute("transB", 0) != 0);
    }
}
