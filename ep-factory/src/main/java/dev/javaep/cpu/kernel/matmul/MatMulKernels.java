package dev.javaep.cpu.kernel.matmul;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.MatMulOps;
import dev.javaep.spi.ops.MatMulOps.GemmGeometry;
import dev.javaep.spi.ops.OpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/** JavaCpu's rows for {@link MatMulOps}: every MatMul and Gemm version, float32 and float16 (through float32). */
public final class MatMulKernels {
    private static final Set<ElementType> TYPES = Set.of(ElementType.FLOAT, ElementType.FLOAT16);

    private MatMulKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        List<KernelTable.Row<CpuKernel>> rows = new ArrayList<>();
        for (OpSchema schema : MatMulOps.MATMUL) {
            rows.add(new KernelTable.Row<>(schema, "T", TYPES, node -> new MatMulKernel(node.input(0).elementType())));
        }
        for (OpSchema schema : MatMulOps.GEMM) {
            rows.add(new KernelTable.Row<>(schema, "T", TYPES, node ->
                    new GemmKernel(GemmGeometry.Attributes.of(node), node.input(0).elementType())));
        }
        return List.copyOf(rows);
    }
}
