package dev.javaep.cpu.kernel.sampling;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ops.KernelTable;
import java.util.List;

/** JavaCpu's rows for {@link dev.javaep.spi.ops.SamplingOps}. */
public final class SamplingKernels {
    private SamplingKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        return List.of();
    }
}
