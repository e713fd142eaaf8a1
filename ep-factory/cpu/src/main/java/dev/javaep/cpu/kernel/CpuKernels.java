package dev.javaep.cpu.kernel;

import dev.javaep.cpu.kernel.conv.ConvKernels;
import dev.javaep.cpu.kernel.elementwise.ElementwiseKernels;
import dev.javaep.cpu.kernel.matmul.MatMulKernels;
import dev.javaep.cpu.kernel.normalization.NormalizationKernels;
import dev.javaep.cpu.kernel.reduction.ReductionKernels;
import dev.javaep.cpu.kernel.sampling.SamplingKernels;
import dev.javaep.cpu.kernel.tensor.TensorKernels;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ops.KernelTable;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.stream.Stream;

/**
 * JavaCpu's kernel table: the rows of every op family ({@code dev.javaep.cpu.kernel.<family>.<Family>Kernels}),
 * each row a {@link dev.javaep.spi.ops.OnnxOps} schema version, the element types JavaCpu implements for it,
 * and the kernel for a node. The decision uses only what is known before shapes are: op type, domain, opset
 * version, element types and attributes. A node javaep cannot run exactly as ONNX specifies is declined,
 * with a shared {@link dev.javaep.spi.DeclineCode}, so ORT leaves it to another execution provider.
 */
public final class CpuKernels {
    private static final KernelTable<CpuKernel> TABLE = new KernelTable<>("JavaCpuExecutionProvider", Stream.of(
                    ElementwiseKernels.rows(), TensorKernels.rows(), MatMulKernels.rows(), ReductionKernels.rows(),
                    ConvKernels.rows(), NormalizationKernels.rows(), SamplingKernels.rows())
            .flatMap(List::stream).toList());

    private CpuKernels() {}

    /** The table itself, for documentation and tests. */
    public static KernelTable<CpuKernel> table() {
        return TABLE;
    }

    /** Whether JavaCpu runs {@code node}, and if not, why. Never throws. */
    public static NodeSupport support(Node node) {
        return TABLE.support(node);
    }

    /** The kernel for this node, or empty when JavaCpu cannot run it. Never throws. */
    public static Optional<CpuKernel> forNode(Node node) {
        return TABLE.select(node) instanceof KernelTable.Selection.Selected<CpuKernel>(var schema, var kernel)
                ? Optional.of(kernel) : Optional.empty();
    }

    /** The op types this EP knows, in alphabetical order, for documentation/logging. */
    public static Set<String> supportedOpTypes() {
        return TABLE.opTypes();
    }
}
