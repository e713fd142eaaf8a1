package dev.javaep.cpu.kernel.reduction;

import dev.javaep.cpu.kernel.CpuKernel;
import dev.javaep.spi.ElementType;
import dev.javaep.spi.Node;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.ReductionOps;
import java.util.List;
import java.util.Set;

/** JavaCpu's rows for {@link ReductionOps}. */
public final class ReductionKernels {
    private static final Set<ElementType> FLOAT = Set.of(ElementType.FLOAT);

    private ReductionKernels() {}

    public static List<KernelTable.Row<CpuKernel>> rows() {
        return List.of(
                new KernelTable.Row<>(ReductionOps.SOFTMAX_1, "T", FLOAT, ReductionKernels::softmax),
                new KernelTable.Row<>(ReductionOps.SOFTMAX_13, "T", FLOAT, ReductionKernels::softmax));
    }

    private static CpuKernel softmax(Node node) {
        long axis = node.intAttribute("axis", SoftmaxKernel.defaultAxis(node.sinceVersion()));
        int rank = node.input(0).rank();
        if (rank >= 0 && (axis < -rank || axis >= rank)) {
            throw new IllegalArgumentException("Softmax axis " + axis + " is outside the input's rank " + rank);
        }
        return new SoftmaxKernel(axis, node.sinceVersion() < 13);
    }
}
