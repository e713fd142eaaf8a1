package dev.javaep.cuda.kernel.reduction;

import dev.javaep.cuda.kernel.CudaKernelFactory;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.ReductionOps;
import java.util.List;
import java.util.Set;

/** JavaCuda's rows for {@link ReductionOps}. */
public final class ReductionKernels {
    private static final Set<ElementType> FLOAT = Set.of(ElementType.FLOAT);

    private ReductionKernels() {}

    public static List<KernelTable.Row<CudaKernelFactory>> rows() {
        return List.of(
                new KernelTable.Row<>(ReductionOps.SOFTMAX_1, "T", FLOAT, ReductionKernels::softmax),
                new KernelTable.Row<>(ReductionOps.SOFTMAX_13, "T", FLOAT, ReductionKernels::softmax));
    }

    private static CudaKernelFactory softmax(Node node) {
        long axis = node.intAttribute("axis", node.sinceVersion() < 13 ? 1L : -1L);
        boolean coerceTo2d = node.sinceVersion() < 13;
        return device -> new SoftmaxNode(device, axis, coerceTo2d);
    }
}
