package dev.javaep.cpu.kernel.matmul;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ValueInfo;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.MatMulOps;
import dev.javaep.spi.ops.MatMulOps.GemmGeometry;
import dev.javaep.spi.ops.OpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Set;

/**
 * JavaCpu's rows for {@link MatMulOps}: every MatMul and Gemm version, float32 and float16 (through float32); Einsum
 * on float32, float16 and float64.
 */
public final class MatMulKernels {
    private static final Set<ElementType> TYPES = Set.of(ElementType.FLOAT, ElementType.FLOAT16);

    /** Einsum computes in double, so float64 is as natural as float32. */
    private static final Set<ElementType> EINSUM_TYPES = Set.of(ElementType.FLOAT, ElementType.FLOAT16, ElementType.DOUBLE);

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
        rows.add(new KernelTable.Row<>(MatMulOps.EINSUM, "T", EINSUM_TYPES, MatMulKernels::einsum));
        return List.copyOf(rows);
    }

    private static CpuKernel einsum(Node node) {
        String equation = node.stringAttribute("equation", null);
        if (equation == null) {
            throw new IllegalArgumentException("Einsum: the equation attribute is required");
        }
        int n = (int) node.inputs().stream().filter(Objects::nonNull).count();
        if (n != node.inputs().size()) {
            throw new IllegalArgumentException("Einsum: an operand is omitted");
        }
        if (node.inputs().stream().allMatch(ValueInfo::hasStaticShape)) {
            // a malformed equation is declined here, not at every Run
            MatMulOps.EinsumGeometry.of(equation, node.inputs().stream().map(ValueInfo::shape).toArray(long[][]::new));
        }
        return new EinsumKernel(equation, node.input(0).elementType());
    }
}
