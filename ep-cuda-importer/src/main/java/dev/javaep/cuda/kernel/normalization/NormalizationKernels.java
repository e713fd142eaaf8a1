package dev.javaep.cuda.kernel.normalization;

import dev.javaep.cuda.driver.Nvrtc;
import dev.javaep.cuda.kernel.CudaKernelFactory;
import dev.javaep.cuda.kernel.CudaKernelLibrary;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.KernelRows;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.NormalizationOps;
import dev.javaep.spi.ops.OpSchema;
import java.util.List;
import java.util.Set;

/** JavaCuda's rows for {@link NormalizationOps}: CUDA C kernels (NVRTC) on float32 and float16, computing in float. */
public final class NormalizationKernels {
    private static final Set<ElementType> TYPES = Set.of(ElementType.FLOAT, ElementType.FLOAT16);

    private NormalizationKernels() {}

    public static List<KernelTable.Row<CudaKernelFactory>> rows() {
        return KernelRows.normalizationRows(TYPES, NormalizationKernels::requireNvrtcAndTypes,
                rule -> device -> new BatchNormalizationNode(device, rule),
                rule -> device -> new RowNormalizationNode(device, rule));
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
            boolean statistics = schema == NormalizationOps.LAYER_NORMALIZATION_17 && parameter.equals("U");
            KernelRows.requireBound(schema, node, parameter, statistics ? Set.of(ElementType.FLOAT) : TYPES,
                    "JavaCuda's kernel takes " + (statistics ? "float32" : "float32 and float16"));
        }
    }
}
