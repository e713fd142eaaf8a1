package dev.javaep.cpu.kernel.normalization;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.KernelRows;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.NormalizationOps;
import dev.javaep.spi.ops.OpSchema;
import java.util.List;
import java.util.Set;

/** JavaCpu's rows for {@link NormalizationOps}: float32, and float16 converted to float per element. */
public final class NormalizationKernels {
    private static final Set<ElementType> TYPES = Set.of(ElementType.FLOAT, ElementType.FLOAT16);

    private NormalizationKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        return KernelRows.normalizationRows(TYPES, NormalizationKernels::requireTypes, BatchNormalizationKernel::new,
                RowNormalizationKernel::new);
    }

    /** The schema's other type parameters (BatchNormalization's T1, T2, U; LayerNormalization's U) in float32 or float16 too. */
    static void requireTypes(OpSchema schema, Node node) {
        for (String parameter : schema.types().keySet()) {
            KernelRows.requireBound(schema, node, parameter, TYPES, "JavaCpu's kernel takes float32 and float16");
        }
    }
}
