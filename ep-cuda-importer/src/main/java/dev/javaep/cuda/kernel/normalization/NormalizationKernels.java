package dev.javaep.cuda.kernel.normalization;

import dev.javaep.cuda.kernel.CudaKernelFactory;
import dev.javaep.spi.ops.KernelTable;
import java.util.List;

/** JavaCuda's rows for {@link dev.javaep.spi.ops.NormalizationOps}. */
public final class NormalizationKernels {
    private NormalizationKernels() {}

    public static List<KernelTable.Row<CudaKernelFactory>> rows() {
        return List.of();
    }
}
