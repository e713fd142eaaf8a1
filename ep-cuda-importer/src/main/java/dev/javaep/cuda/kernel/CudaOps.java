package dev.javaep.cuda.kernel;

import dev.javaep.cuda.CudaDevice;
import dev.javaep.cuda.kernel.conv.ConvKernels;
import dev.javaep.cuda.kernel.elementwise.ElementwiseKernels;
import dev.javaep.cuda.kernel.matmul.MatMulKernels;
import dev.javaep.cuda.kernel.normalization.NormalizationKernels;
import dev.javaep.cuda.kernel.reduction.ReductionKernels;
import dev.javaep.cuda.kernel.sampling.SamplingKernels;
import dev.javaep.cuda.kernel.tensor.TensorKernels;
import dev.javaep.spi.CompiledNode;
import dev.javaep.spi.Node;
import dev.javaep.spi.NodeSupport;
import dev.javaep.spi.ops.KernelTable;
import dev.javaep.spi.ops.OpSchema;
import java.util.List;
import java.util.stream.Stream;

/**
 * JavaCuda's kernel table: the rows of every op family ({@code dev.javaep.cuda.kernel.<family>.<Family>Kernels},
 * mirroring JavaCpu's {@code dev.javaep.cpu.kernel.<family>}), each a {@link dev.javaep.spi.ops.OnnxOps} schema
 * version, the element types JavaCuda implements for it, and the compiled node. Pure Java on the node record:
 * it decides without a GPU. A node is refused, never half-run.
 */
public final class CudaOps {
    private static final KernelTable<CudaKernelFactory> TABLE = new KernelTable<>("JavaCudaExecutionProvider", Stream.of(
                    ElementwiseKernels.rows(), TensorKernels.rows(), MatMulKernels.rows(), ReductionKernels.rows(),
                    ConvKernels.rows(), NormalizationKernels.rows(), SamplingKernels.rows())
            .flatMap(List::stream).toList());

    private CudaOps() {}

    /** The table itself, for documentation and tests. */
    public static KernelTable<?> table() {
        return TABLE;
    }

    /** Whether the EP runs {@code node}, and if not, why. Never throws; needs no GPU. */
    public static NodeSupport support(Node node) {
        return TABLE.support(node);
    }

    /** The compiled node for a supported {@code node} on {@code device}. */
    public static CompiledNode compile(Node node, CudaDevice device) {
        return switch (TABLE.select(node)) {
            case KernelTable.Selection.Selected<CudaKernelFactory>(OpSchema schema, CudaKernelFactory kernel) -> kernel.on(device);
            case KernelTable.Selection.Declined<CudaKernelFactory>(NodeSupport.Declined d) -> throw new IllegalArgumentException(
                    "javaep: JavaCudaExecutionProvider cannot compile " + node + ": " + d.reason());
        };
    }
}
