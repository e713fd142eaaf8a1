package dev.javaep.cuda.kernel.normalization;

import dev.javaep.cuda.driver.Nvrtc;
import dev.javaep.cuda.kernel.CudaKernelFactory;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.NormalizationOps;
import dev.javaep.spi.ops.NormalizationOps.BatchNorm;
import dev.javaep.spi.ops.NormalizationOps.RowNormalization;
import dev.javaep.spi.ops.OpSchema;
import java.util.List;
import java.util.Set;

/** JavaCuda's rows for {@link NormalizationOps}: CUDA C kernels (NVRTC) on float32 and float16, computing in float. */
public final class NormalizationKernels {
    private static final Set<ElementType> TYPES = Set.of(ElementType.FLOAT, ElementType.FLOAT16);

    private NormalizationKernels() {}

    public static List<KernelTable.Row<CudaKernelFactory>> rows() {
        return NormalizationOps.SCHEMAS.stream().map(schema -> schema.opType().equals("BatchNormalization")
                ? batchNorm(schema) : rowNorm(schema)).toList();
    }

    private static KernelTable.Row<CudaKernelFactory> batchNorm(OpSchema schema) {
        return new KernelTable.Row<>(schema, "T", TYPES, node -> {
            requireNvrtcAndTypes(schema, node);
            BatchNorm rule = BatchNorm.of(node);
            return device -> new BatchNormalizationNode(device, rule);
        });
    }

    private static KernelTable.Row<CudaKernelFactory> rowNorm(OpSchema schema) {
        return new KernelTable.Row<>(schema, "T", TYPES, node -> {
            requireNvrtcAndTypes(schema, node);
            RowNormalization rule = RowNormalization.of(node);
            return device -> new RowNormalizationNode(device, rule);
        });
    }

    /**
     * NVRTC compiles these kernels; and the schema's other type parameters (BatchNormalization's T1, T2, U;
     * LayerNormalization's U, which must be float32: the kernel writes the statistics as float).
     */
    private static void requireNvrtcAndTypes(OpSchema schema, Node node) {
        if (!CudaKernelLibrary.compilesSources()) {
            throw new UnsupportedOperationException(schema.opType() + " is a CUDA C kernel and " + Nvrtc.absenceReason());
        }
        for (String parameter : schema.types().keySet()) {
            ElementType type = schema.typeOf(node, parameter);
            boolean statistics = schema == NormalizationOps.LAYER_NORMALIZATION_17 && parameter.equals("U");
            if (type != null && (statistics ? type != ElementType.FLOAT : !TYPES.contains(type))) {
                throw new UnsupportedOperationException(schema.describe() + ": " + parameter + " is " + type
                        + "; JavaCuda's kernel takes " + (statistics ? "float32" : "float32 and float16"));
            }
        }
    }
}
