package dev.javaep.cuda.kernel.conv;

import dev.javaep.cuda.kernel.CudaKernelFactory;
import dev.javaep.spi.ops.KernelTable;
import java.util.List;

/** JavaCuda's rows for {@link dev.javaep.spi.ops.ConvOps} and {@link dev.javaep.spi.ops.PoolOps}. */
public final class ConvKernels {
    private ConvKernels() {}

    public static List<KernelTable.Row<CudaKernelFactory>> rows() {
        return List.of();
    }
}
