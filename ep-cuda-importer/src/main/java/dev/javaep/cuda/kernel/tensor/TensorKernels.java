package dev.javaep.cuda.kernel.tensor;

import dev.javaep.cuda.kernel.CudaKernelFactory;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OnnxTypes;
import dev.javaep.spi.ops.TensorOps;
import java.util.List;

/** JavaCuda's rows for {@link TensorOps}. */
public final class TensorKernels {
    private TensorKernels() {}

    public static List<KernelTable.Row<CudaKernelFactory>> rows() {
        return List.of(new KernelTable.Row<>(TensorOps.IDENTITY, "V", OnnxTypes.FIXED_SIZE, node -> IdentityNode::new));
    }
}
