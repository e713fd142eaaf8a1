package dev.javaep.cuda.kernel.matmul;

import dev.javaep.cuda.driver.Nvrtc;
import dev.javaep.cuda.kernel.CudaKernelFactory;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.MatMulOps;
import dev.javaep.spi.ops.MatMulOps.GemmGeometry;
import dev.javaep.spi.ops.OpSchema;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * JavaCuda's rows for {@link MatMulOps}: every MatMul and Gemm version on float32 (the generated PTX GEMM, with the
 * CUDA C product for batches that broadcast) and float16 (CUDA C, float accumulation; declined without NVRTC).
 */
public final class MatMulKernels {
    private static final Set<ElementType> TYPES = Set.of(ElementType.FLOAT, ElementType.FLOAT16);

    private MatMulKernels() {}

    public static List<KernelTable.Row<CudaKernelFactory>> rows() {
        List<KernelTable.Row<CudaKernelFactory>> rows = new ArrayList<>();
        for (OpSchema schema : MatMulOps.MATMUL) {
            rows.add(new KernelTable.Row<>(schema, "T", TYPES, node -> product(node, MatrixProductNode.Kind.MATMUL)));
        }
        for (OpSchema schema : MatMulOps.GEMM) {
            rows.add(new KernelTable.Row<>(schema, "T", TYPES, node -> product(node, MatrixProductNode.Kind.GEMM)));
        }
        return List.copyOf(rows);
    }

    private static CudaKernelFactory product(Node node, MatrixProductNode.Kind kind) {
        ElementType type = node.input(0).elementType();
        if (MatrixProductNode.needsNvrtc(type) && !CudaKernelLibrary.compilesSources()) {
            throw new UnsupportedOperationException(node.opType() + " on " + type + " is CUDA C, and " + Nvrtc.absenceReason());
        }
        GemmGeometry.Attributes attributes = kind == MatrixProductNode.Kind.GEMM ? GemmGeometry.Attributes.of(node)
                : new GemmGeometry.Attributes(1f, 0f, false, false, true);
        return device -> new MatrixProductNode(device, kind, attributes, type);
    }
}
