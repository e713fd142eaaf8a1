package dev.javaep.cpu.kernel.tensor;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OnnxTypes;
import dev.javaep.spi.ops.TensorOps;
import java.util.List;

/** JavaCpu's rows for {@link TensorOps}. */
public final class TensorKernels {
    private TensorKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        return List.of(new KernelTable.Row<>(TensorOps.IDENTITY, "V", OnnxTypes.FIXED_SIZE, node -> new IdentityKernel()));
    }
}
