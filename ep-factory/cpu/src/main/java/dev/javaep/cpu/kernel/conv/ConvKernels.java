package dev.javaep.cpu.kernel.conv;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ops.KernelTable;
import java.util.List;

/** JavaCpu's rows for {@link dev.javaep.spi.ops.ConvOps} and {@link dev.javaep.spi.ops.PoolOps}. */
public final class ConvKernels {
    private ConvKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        return List.of();
    }
}
