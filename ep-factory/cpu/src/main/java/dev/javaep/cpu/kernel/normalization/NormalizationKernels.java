package dev.javaep.cpu.kernel.normalization;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.NormalizationOps;
import dev.javaep.spi.ops.NormalizationOps.BatchNorm;
import dev.javaep.spi.ops.NormalizationOps.RowNormalization;
import dev.javaep.spi.ops.OpSchema;
import java.util.List;
import java.util.Set;

/** JavaCpu's rows for {@link NormalizationOps}: float32, and float16 converted to float per element. */
public final class NormalizationKernels {
    private static final Set<ElementType> TYPES = Set.of(ElementType.FLOAT, ElementType.FLOAT16);

    private NormalizationKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        return NormalizationOps.SCHEMAS.stream().map(schema -> schema.opType().equals("BatchNormalization")
                ? batchNorm(schema) : rowNorm(schema)).toList();
    }

    private static KernelTable.Row<CpuKernel> batchNorm(OpSchema schema) {
        return new KernelTable.Row<>(schema, "T", TYPES, node -> {
            requireTypes(schema, node);
            return new BatchNormalizationKernel(BatchNorm.of(node));
        });
    }

    private static KernelTable.Row<CpuKernel> rowNorm(OpSchema schema) {
        return new KernelTable.Row<>(schema, "T", TYPES, node -> {
            requireTypes(schema, node);
            return new RowNormalizationKernel(RowNormalization.of(node));
        });
    }

    /** The schema's other type parameters (BatchNormalization's T1, T2, U; LayerNormalization's U) in float32 or float16 too. */
    static void requireTypes(OpSchema schema, Node node) {
        for (String parameter : schema.types().keySet()) {
            ElementType type = schema.typeOf(node, parameter);
            if (type != null && !TYPES.contains(type)) {
                throw new UnsupportedOperationException(schema.describe() + ": " + parameter + " is " + type
                        + "; JavaCpu's kernel takes float32 and float16");
            }
        }
    }
}
