package dev.javaep.cpu.kernel.normalization;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ops.KernelTable;
import java.util.List;

/** JavaCpu's rows for {@link dev.javaep.spi.ops.NormalizationOps}. */
public final class NormalizationKernels {
    private NormalizationKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        return List.of();
    }
}
