package dev.javaep.cuda.kernel.sampling;

import dev.javaep.cuda.kernel.CudaKernelFactory;
import dev.javaep.spi.ops.KernelTable;
import java.util.List;

/** JavaCuda's rows for {@link dev.javaep.spi.ops.SamplingOps}. */
public final class SamplingKernels {
    private SamplingKernels() {}

    public static List<KernelTable.Row<CudaKernelFactory>> rows() {
        return List.of();
    }
}
